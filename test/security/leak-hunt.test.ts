// Hunts for leaked secrets the way an attacker with read access to the logs, the database or the pages would: the
// service runs as its own process at LOG_LEVEL=trace with JSON logs; the test uses every kind of secret it knows
// (an API token, a session cookie, the webhook secrets and signatures, the app's private key and the JWT made from
// it, the installation token GitHub hands out, a database password) on every family of routes, then searches all
// the process wrote, every text column of the database and every body it served for each secret, as sent and in
// base64. One hit fails the test (docs/security.md).
import { type ChildProcess, spawn } from "node:child_process";
import { createHmac, randomBytes } from "node:crypto";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { openMigratedDatabase } from "../../src/store/database.ts";
import { rememberRepository } from "../../src/store/repositories.ts";
import { createToken } from "../../src/store/tokens.ts";
import { createTestStore, testDialects } from "../support/database.ts";
import { testPrivateKey } from "../support/github-app.ts";
import { freePort } from "../support/ports.ts";
import { junitReport } from "../support/test-health.ts";

const root = join(import.meta.dirname, "../..");
const tsxLoader = pathToFileURL(join(root, "node_modules/tsx/dist/loader.mjs")).href;
const serviceArguments = ["--import", tsxLoader, join(root, "src/main.ts")];

/** The secrets a run used, by name, so that a hit says which one leaked. */
type Secrets = Map<string, string>;

/** Each secret as sent, and in base64 and base64url: a leak through an encoding is a leak. */
function encodings(secrets: Secrets): [string, string][] {
  return [...secrets].flatMap(([name, value]) => {
    const bytes = Buffer.from(value);
    return [
      [name, value],
      [`${name} (base64)`, bytes.toString("base64")],
      [`${name} (base64url)`, bytes.toString("base64url")],
    ] as [string, string][];
  });
}

/** "<secret> in <place>" for every secret found in a place's text. */
function hits(secrets: Secrets, places: Record<string, string>): string[] {
  const found: string[] = [];
  for (const [name, encoded] of encodings(secrets)) {
    for (const [place, text] of Object.entries(places)) {
      if (text.includes(encoded)) found.push(`${name} in ${place}`);
    }
  }
  return found;
}

/** The key's body lines: a leak of a part of the key is a leak of the key. */
function keyParts(privateKey: string): [string, string][] {
  return privateKey
    .split("\n")
    .filter((line) => line.length >= 40 && !line.startsWith("-----"))
    .map((line, index) => [`private key line ${index + 1}`, line]);
}

function randomSecret(prefix: string): string {
  return `${prefix}${randomBytes(24).toString("base64url")}`;
}

interface Running {
  child: ChildProcess;
  output: () => string;
}

/** Starts the service and resolves once it listens, or with its output if it exits first. */
function startService(cwd: string, env: Record<string, string>): Promise<Running & { exitCode?: number }> {
  const child = spawn(process.execPath, serviceArguments, {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: cwd, NODE_ENV: "production", ...env },
  });
  let output = "";
  return new Promise((resolve) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (/Listening on http/.test(output)) resolve({ child, output: () => output });
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("exit", (code) => resolve({ child, output: () => output, exitCode: code ?? -1 }));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  await exited;
}

/**
 * A GitHub that hands out an installation token and then fails the repository read the upload needs: the failed
 * call carries that token. It keeps the credentials the service sent it (the app's JWT, the installation token).
 */
async function failingGitHub(installationToken: string) {
  const credentials = new Set<string>();
  const server: Server = createServer((request, response) => {
    const authorization = request.headers.authorization;
    if (authorization !== undefined) credentials.add(authorization.replace(/^(bearer|token)\s+/i, ""));
    const reply = (status: number, body: unknown) =>
      response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (
      request.method === "POST" &&
      /^\/api\/v3\/app\/installations\/\d+\/access_tokens$/.test(request.url ?? "")
    ) {
      reply(201, { token: installationToken, expires_at: new Date(Date.now() + 3600_000).toISOString() });
    } else {
      reply(500, { message: "Server Error" });
    }
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    host: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    credentials,
    close: () => server.close(),
  };
}

/**
 * A PostgreSQL URL with a password in it, for the hunt to look for: the URL's own, else one added (the test
 * database trusts local connections, so the server never asks for it, yet the service holds it as an operator's
 * would). A SQLite file has none.
 */
function withPassword(url: string): { databaseUrl: string; databasePassword?: string } {
  if (url.startsWith("file:")) return { databaseUrl: url };
  const parsed = new URL(url);
  if (parsed.password === "") parsed.password = randomSecret("dbpass-");
  return { databaseUrl: parsed.toString(), databasePassword: decodeURIComponent(parsed.password) };
}

/** Every text value of every table, one line a row. */
async function databaseText(databaseUrl: string): Promise<string> {
  const store = await openMigratedDatabase(databaseUrl);
  try {
    const tables =
      store.dialect === "sqlite"
        ? await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(store.db)
        : await sql<{ name: string }>`select table_name as name from information_schema.tables
            where table_schema = current_schema()`.execute(store.db);
    const lines: string[] = [];
    for (const { name } of tables.rows) {
      const rows = await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(store.db);
      for (const row of rows.rows) lines.push(`${name}: ${JSON.stringify(row, (_, value) => binary(value))}`);
    }
    return lines.join("\n");
  } finally {
    await store.close();
  }
}

/** Bytes as the text they hold: a secret stored in a blob is still stored. */
function binary(value: unknown): unknown {
  return value instanceof Uint8Array ? Buffer.from(value).toString("latin1") : value;
}

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) await stop(child);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const workdir = () => {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-leaks-"));
  dirs.push(dir);
  return dir;
};

describe.each(testDialects)("no secret leaks (%s)", (dialect) => {
  it("from API, webhook, page and failed GitHub requests into the log, the database or a body", async () => {
    const privateKey = testPrivateKey();
    const webhookSecret = randomSecret("whsec-");
    const previousWebhookSecret = randomSecret("whsec-old-");
    const installationToken = randomSecret("ghs_");
    const github = await failingGitHub(installationToken);
    const testStore = await createTestStore(dialect);
    const { databaseUrl, databasePassword } = withPassword(testStore.databaseUrl);
    const { token } = await createToken(testStore.db, {
      organization: "acme",
      owners: [],
      host: github.host,
      now: Date.now(),
    });
    await rememberRepository(
      testStore.db,
      { host: github.host, owner: "acme", name: "widgets", installationId: 7 },
      Date.now(),
    );
    await testStore.close();
    const unknownToken = `sy_${randomBytes(8).toString("hex")}_${randomBytes(32).toString("base64url")}`;

    const port = await freePort();
    const service = await startService(workdir(), {
      PORT: String(port),
      HOST: "127.0.0.1",
      DATABASE_URL: databaseUrl,
      APP_ID: "1",
      PRIVATE_KEY: privateKey,
      WEBHOOK_SECRET: webhookSecret,
      WEBHOOK_SECRET_PREVIOUS: previousWebhookSecret,
      GHE_HOST: github.host,
      GHE_PROTOCOL: "http",
      LOG_LEVEL: "trace",
      LOG_FORMAT: "json",
      OPERATOR_METRICS: "true",
    });
    children.push(service.child);
    expect(service.exitCode, service.output()).toBeUndefined();

    const base = `http://127.0.0.1:${port}`;
    const bodies = new Map<string, string>();
    const request = async (path: string, init: RequestInit = {}) => {
      const response = await fetch(`${base}${path}`, { redirect: "manual", ...init });
      // Named by number and path without the query: the query itself holds secrets on purpose.
      const named = `the body of request ${bodies.size + 1}, ${init.method ?? "GET"} ${path.split("?")[0]}`;
      bodies.set(`${named} (${response.status})`, await response.text());
      return response;
    };
    const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
    const repo = { host: github.host, owner: "acme", name: "widgets" };

    // The API: with the token as the header, as a Bearer token, in a query string, unknown, and on a 404.
    await request("/v1/getQueue", json({ repo, targetBranch: "main" }, { "x-api-token": token }));
    await request(
      `/v1/getQueue?token=${token}`,
      json({ repo, targetBranch: "main" }, { "x-api-token": token }),
    );
    await request("/v1/getQueue", json({ repo, targetBranch: "main" }, { "x-api-token": unknownToken }));
    await request("/v1/getQueue", json({ repo }, { "x-api-token": token, authorization: `Bearer ${token}` }));
    await request(`/v1/no-such-route?token=${token}`, { headers: { "x-api-token": token } });
    await request(`/v1/getQueue?token=${token}`, { headers: { "x-api-token": token } });
    await request("/v1/metrics", { headers: { authorization: `Bearer ${token}` } });
    await request("/metrics", { headers: { authorization: `Bearer ${token}`, cookie: `token=${token}` } });
    // Failed GitHub calls, made with the installation token: the new queue's branch head, which GitHub fails to
    // give, and an upload's default branch.
    const created = await request(
      "/v1/createQueue",
      json({ repo, targetBranch: "main" }, { "x-api-token": token }),
    );
    expect(created.status).toBeGreaterThanOrEqual(500);
    await request(
      "/v1/flaky-tests/upload",
      json(
        {
          repo,
          org_url_slug: "acme",
          commit_sha: "a".repeat(40),
          branch: "feature",
          junit_xml: [junitReport([{ name: "breaks", outcome: "failed" }])],
        },
        { "x-api-token": token },
      ),
    );

    // Webhooks: signed with the secret and with the previous one, forged, and malformed.
    const signatures: string[] = [];
    const deliver = async (secret: string, event: string, payload: string) => {
      const signature = `sha256=${createHmac("sha256", secret).update(payload).digest("hex")}`;
      signatures.push(signature);
      return request("/api/github/webhooks", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-github-event": event,
          "x-github-delivery": randomBytes(8).toString("hex"),
          "x-hub-signature": `sha1=${createHmac("sha1", secret).update(payload).digest("hex")}`,
          "x-hub-signature-256": signature,
        },
        body: payload,
      });
    };
    expect((await deliver(webhookSecret, "ping", '{"zen":"hi","hook_id":1}')).status).toBe(200);
    expect((await deliver(previousWebhookSecret, "ping", '{"zen":"hi","hook_id":2}')).status).toBe(200);
    expect((await deliver(randomSecret("forged-"), "ping", "{}")).status).toBe(401);
    expect((await deliver(webhookSecret, "status", '{"state":"success"}')).status).toBe(400);
    expect((await deliver(webhookSecret, "ping", "{not json")).status).toBe(400);

    // Pages: signing in with the token (a form), then with the session cookie, and the token in a query.
    const signIn = await request("/tests/sign-in", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token, repository: `${github.host}/acme/widgets` }).toString(),
    });
    expect(signIn.status).toBe(303);
    const session = /switchyard_session=([^;]+)/.exec(signIn.headers.get("set-cookie") ?? "")?.[1];
    expect(session).toBeDefined();
    const cookie = `switchyard_session=${session}; other=${token}`;
    await request(`/tests/${github.host}/acme/widgets`, { headers: { cookie } });
    await request(`/tests/${github.host}/acme/widgets?token=${token}&session=${session}`, {
      headers: { cookie },
    });
    await request(`/queues/${github.host}/acme/widgets`, { headers: { cookie } });
    await request("/tests/sign-in", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        token: unknownToken,
        repository: `${github.host}/acme/widgets`,
      }).toString(),
    });
    await request("/healthz", { headers: { cookie, "x-api-token": token } });
    await request("/readyz", { headers: { cookie, "x-api-token": token } });

    await stop(service.child);
    github.close();

    const secrets: Secrets = new Map([
      ["API token", token],
      ["unknown API token", unknownToken],
      ["session cookie", session as string],
      ["webhook secret", webhookSecret],
      ["previous webhook secret", previousWebhookSecret],
      ["installation token", installationToken],
      ...[...github.credentials].map((credential, index) => [
        `credential ${index + 1} sent to GitHub`,
        credential,
      ]),
      ...signatures.map((signature, index) => [`webhook signature ${index + 1}`, signature]),
      ...keyParts(privateKey),
      ...(databasePassword === undefined ? [] : [["database password", databasePassword]]),
    ] as [string, string][]);
    // The app's JWT and the installation token both reached GitHub: the hunt includes what GitHub received.
    expect(github.credentials.size).toBeGreaterThanOrEqual(2);
    expect(github.credentials).toContain(installationToken);

    const log = service.output();
    // The hunt is only worth something if the log holds what it should: a line for each request, and more.
    expect(log).toContain('"url":"/v1/getQueue?token=[REDACTED]"');
    // Debug lines (each GitHub call) are written: the levels below info are on.
    expect(log).toContain('"level":20');
    expect(
      hits(secrets, {
        "the log": log,
        "the database": await databaseText(databaseUrl),
        ...Object.fromEntries(bodies),
      }),
    ).toEqual([]);
  }, 240_000);
});

describe("no secret leaks when the configuration is refused", () => {
  it.each([
    {
      refusal: "a database URL the service cannot use",
      env: (secret: string) => ({ DATABASE_URL: `mysql://switchyard:${secret}@db.internal/switchyard` }),
    },
    {
      refusal: "a PostgreSQL database that does not answer",
      env: (secret: string) => ({ DATABASE_URL: `postgres://switchyard:${secret}@127.0.0.1:9/switchyard` }),
    },
    {
      refusal: "a private key that is not one",
      env: (secret: string) => ({ APP_ID: "1", PRIVATE_KEY: `not a key: ${secret}` }),
    },
    {
      refusal: "a private key without the app's id",
      env: (secret: string) => ({
        PRIVATE_KEY: `-----BEGIN RSA PRIVATE KEY-----\n${secret}\n-----END RSA PRIVATE KEY-----`,
      }),
    },
  ])(
    "$refusal: the process stops and says why, without the secret",
    async ({ env }) => {
      const secret = randomSecret("hunter2-");
      const webhookSecret = randomSecret("whsec-");
      const service = await startService(workdir(), {
        PORT: String(await freePort()),
        HOST: "127.0.0.1",
        WEBHOOK_SECRET: webhookSecret,
        LOG_LEVEL: "trace",
        LOG_FORMAT: "json",
        ...env(secret),
      });
      children.push(service.child);
      expect(service.exitCode, service.output()).toBe(1);
      expect(service.output()).not.toBe("");
      const secrets: Secrets = new Map([
        ["secret in the configuration", secret],
        ["webhook secret", webhookSecret],
      ]);
      expect(hits(secrets, { "the output": service.output() })).toEqual([]);
    },
    120_000,
  );
});
