// The process as `npm start` runs it, and as the image does from the bundle `npm run build` writes
// (scripts/bundle-service.mjs): configuration, database creation and migration, Probot's server.
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { copyFileSync, existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { rememberRepository } from "../src/store/repositories.ts";
import { createToken } from "../src/store/tokens.ts";
import { openMigratedDatabase, type Store } from "../src/store/database.ts";
import { testPrivateKey } from "./support/github-app.ts";
import { freePort } from "./support/ports.ts";
import { junitReport } from "./support/test-health.ts";

const root = join(import.meta.dirname, "..");
// As `npm start` does (tsx), but resolved from the project: the process runs in a directory of its own.
const tsxLoader = pathToFileURL(join(root, "node_modules/tsx/dist/loader.mjs")).href;

/** The bundle, built once, in a directory of its own that sees the project's node_modules as dist/ does. */
let bundleDir: string | undefined;
function bundledMain(): string {
  if (bundleDir === undefined) {
    bundleDir = mkdtempSync(join(tmpdir(), "switchyard-bundle-"));
    symlinkSync(join(root, "node_modules"), join(bundleDir, "node_modules"));
    execFileSync(process.execPath, [join(root, "scripts/bundle-service.mjs"), join(bundleDir, "src")]);
  }
  return join(bundleDir, "src/main.js");
}
afterAll(() => {
  if (bundleDir !== undefined) rmSync(bundleDir, { recursive: true, force: true });
});

/**
 * The image's runtime stage without Docker: the bundle beside package.json and the node_modules that
 * scripts/runtime-modules.mjs gathers, and nothing else, as the Dockerfile lays them out in /app.
 */
let imageDir: string | undefined;
function imageApp(): string {
  if (imageDir === undefined) {
    imageDir = mkdtempSync(join(tmpdir(), "switchyard-image-"));
    execFileSync(process.execPath, [join(root, "scripts/bundle-service.mjs"), join(imageDir, "dist/src")]);
    execFileSync(process.execPath, [join(root, "scripts/runtime-modules.mjs"), imageDir]);
    copyFileSync(join(root, "package.json"), join(imageDir, "package.json"));
  }
  return imageDir;
}
afterAll(() => {
  if (imageDir !== undefined) rmSync(imageDir, { recursive: true, force: true });
});

/** Node's arguments for each way the service is started, and whether it may serve Probot's setup page. */
const entries: [string, () => string[], { setupPage: boolean }][] = [
  ["npm start", () => ["--import", tsxLoader, join(root, "src/main.ts")], { setupPage: true }],
  ["node dist/src/main.js (the bundle)", () => [bundledMain()], { setupPage: true }],
  // The image needs the app's credentials (it runs in production): no setup page, and no Probot beside the bundle.
  ["the image's runtime files", () => [join(imageApp(), "dist/src/main.js")], { setupPage: false }],
];

// Each test starts a process of its own (three ways, beside the rest of the suite): a busy machine slows them, hence
// a minute per test.
describe.each(entries)(
  "%s",
  (_, entryArguments, { setupPage }) => {
    // Bundling (and gathering the image's packages) takes seconds of its own: done before the first test's clock.
    beforeAll(() => void entryArguments(), 120_000);

    /** Starts the service in `cwd` and resolves once it logged where it listens. */
    function start(
      cwd: string,
      env: Record<string, string>,
    ): Promise<{ child: ChildProcess; log: () => string }> {
      const child = spawn(process.execPath, entryArguments(), {
        cwd,
        env: { PATH: process.env.PATH ?? "", HOME: cwd, NODE_ENV: "development", ...env },
      });
      let log = "";
      return new Promise((resolve, reject) => {
        const onData = (chunk: Buffer) => {
          log += chunk.toString();
          if (/Listening on http/.test(log)) resolve({ child, log: () => log });
        };
        child.stdout?.on("data", onData);
        child.stderr?.on("data", onData);
        child.on("exit", (code) => reject(new Error(`exited with ${code}:\n${log}`)));
      });
    }

    const children: ChildProcess[] = [];
    const dirs: string[] = [];
    afterEach(() => {
      for (const child of children.splice(0)) child.kill("SIGKILL");
      for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    });
    const workdir = () => {
      const dir = mkdtempSync(join(tmpdir(), "switchyard-start-"));
      dirs.push(dir);
      return dir;
    };

    /**
     * Starts the service with app credentials, on a database that `prepare` fills first; resolves with the port and
     * what `prepare` made.
     */
    async function startWithApp<T extends object>(
      env: Record<string, string>,
      prepare: (store: Store) => Promise<T>,
    ) {
      const cwd = workdir();
      const port = await freePort();
      const databaseUrl = `file:${join(cwd, "service.db")}`;
      const store = await openMigratedDatabase(databaseUrl);
      const prepared = await prepare(store);
      await store.close();
      const { child } = await start(cwd, {
        PORT: String(port),
        HOST: "127.0.0.1",
        DATABASE_URL: databaseUrl,
        APP_ID: "1",
        PRIVATE_KEY: testPrivateKey(),
        WEBHOOK_SECRET: "secret",
        ...env,
      });
      children.push(child);
      return { port, databaseUrl, ...prepared };
    }

    it.runIf(setupPage)(
      "without app credentials creates the SQLite database and serves Probot's setup page",
      async () => {
        const cwd = workdir();
        const port = await freePort();
        const { child, log } = await start(cwd, {
          PORT: String(port),
          HOST: "127.0.0.1",
          APP_ID: "",
          PRIVATE_KEY: "",
        });
        children.push(child);
        expect(log()).toContain(`Listening on http://127.0.0.1:${port}`);
        expect(existsSync(join(cwd, "data/switchyard.db"))).toBe(true);
        const page = await fetch(`http://127.0.0.1:${port}/probot`);
        expect(page.status).toBe(200);
        expect(await page.text()).toContain("Register GitHub App");
        // The process is live; it is not ready, and says what it lacks; / leads to the setup page.
        expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
        const readiness = await fetch(`http://127.0.0.1:${port}/readyz`);
        expect(readiness.status).toBe(503);
        expect(await readiness.json()).toMatchObject({ code: "github_app_not_registered" });
        const root = await fetch(`http://127.0.0.1:${port}/`, { redirect: "manual" });
        expect(root.headers.get("location")).toBe("/probot");
      },
    );

    it("with app credentials serves the /v1 API, health probes and process metrics on the migrated database", async () => {
      const { port, token } = await startWithApp({ OPERATOR_METRICS: "true" }, (store) =>
        createToken(store.db, { organization: "acme", owners: [], host: "github.com", now: 1 }),
      );
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
      expect(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()).toContain(
        "process_resident_memory_bytes",
      );
      const response = await fetch(`http://127.0.0.1:${port}/v1/getQueue`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-token": token },
        body: JSON.stringify({
          repo: { host: "github.com", owner: "other", name: "x" },
          targetBranch: "main",
        }),
      });
      expect(response.status).toBe(403);
      expect((await fetch(`http://127.0.0.1:${port}/ping`)).status).toBe(200);
      // Probot's server puts its own webhook middleware first: the app's endpoint must still be the one answering.
      const webhook = (signature: string) =>
        fetch(`http://127.0.0.1:${port}/api/github/webhooks`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "x-github-event": "ping",
            "x-github-delivery": "d-1",
            "x-hub-signature-256": signature,
          },
          body: "{}",
        });
      const forged = await webhook("sha256=00");
      expect(forged.status).toBe(401);
      expect(forged.headers.get("content-type")).toBe("application/problem+json");
      expect(await forged.json()).toMatchObject({ code: "webhook_signature_invalid" });
      const signed = `sha256=${createHmac("sha256", "secret").update("{}").digest("hex")}`;
      expect((await webhook(signed)).status).toBe(200);
    });

    it("stores a JUnit upload, read on its reader thread, against a GitHub Enterprise host", async () => {
      // GitHub answers the installation's token and the repository's default branch (docs/test-health.md#classification).
      const github = createServer((request, response) => {
        const reply = (status: number, body: unknown) =>
          response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
        if (request.method === "POST" && request.url === "/api/v3/app/installations/7/access_tokens") {
          reply(201, { token: "ghs_test", expires_at: new Date(Date.now() + 3600_000).toISOString() });
        } else if (request.method === "GET" && request.url === "/api/v3/repos/acme/widgets") {
          reply(200, { name: "widgets", owner: { login: "acme" }, default_branch: "trunk" });
        } else {
          reply(404, { message: "Not Found" });
        }
      });
      github.listen(0, "127.0.0.1");
      await once(github, "listening");
      const host = `127.0.0.1:${(github.address() as AddressInfo).port}`;
      try {
        const { port, token } = await startWithApp(
          { GHE_HOST: host, GHE_PROTOCOL: "http" },
          async (store) => {
            await rememberRepository(
              store.db,
              { host, owner: "acme", name: "widgets", installationId: 7 },
              1,
            );
            return createToken(store.db, { organization: "acme", owners: [], host, now: 1 });
          },
        );
        const cases = Array.from({ length: 5000 }, (_, index) => ({ name: `case ${index}` }));
        const response = await fetch(`http://127.0.0.1:${port}/v1/flaky-tests/upload`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-api-token": token },
          body: JSON.stringify({
            repo: { host, owner: "acme", name: "widgets" },
            org_url_slug: "acme",
            commit_sha: "a".repeat(40),
            branch: "trunk",
            junit_xml: [junitReport([...cases, { name: "breaks", outcome: "failed" }])],
          }),
        });
        expect(response.status).toBe(200);
        expect(await response.json()).toMatchObject({
          test_results: 5001,
          failures: 1,
          unquarantined_failures: [{ name: "breaks", classname: "pkg.Widget" }],
        });
      } finally {
        github.close();
      }
    });

    it.runIf(!setupPage)(
      "holds the command line tool, bundled: a token it creates opens the API",
      async () => {
        const { port, databaseUrl } = await startWithApp({}, async () => ({}));
        const cli = join(imageApp(), "dist/src/cli/main.js");
        const { stdout } = await promisify(execFile)(
          process.execPath,
          [cli, "token", "create", "--org", "acme"],
          {
            env: { PATH: process.env.PATH ?? "", DATABASE_URL: databaseUrl },
          },
        );
        const token = stdout.trim();
        // A test-health listing: its request is validated and its answer serialised by the compilers loaded on first use.
        const response = await fetch(`http://127.0.0.1:${port}/v1/flaky-tests/list-quarantined-tests`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-api-token": token },
          body: JSON.stringify({
            repo: { host: "github.com", owner: "acme", name: "widgets" },
            org_url_slug: "acme",
            page_query: {},
          }),
        });
        expect(response.status).toBe(200);
        expect(await response.json()).toMatchObject({ quarantined_tests: [], page: { total_rows: 0 } });
      },
    );

    it("refuses to start with invalid configuration and says why", async () => {
      const cwd = workdir();
      const child = spawn(process.execPath, entryArguments(), {
        cwd,
        env: { PATH: process.env.PATH ?? "", DATABASE_URL: "mysql://nope" },
      });
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise((resolve) => child.on("exit", resolve));
      expect(code).toBe(1);
      expect(stderr).toContain("DATABASE_URL must start with file: (SQLite) or postgres://");
    });
  },
  60_000,
);
