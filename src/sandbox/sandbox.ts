// The sandbox: the real service (src/main.ts, in a process of its own, on a SQLite file of its own) against a
// simulated GitHub (./github-server.ts) holding one repository, with simulated CI (./ci-simulator.ts) and webhooks
// delivered as GitHub delivers them. It opens a queue and feeds it pull requests at a chosen rate, a chosen share of
// them broken (every run holding one fails) or flaky (runs holding one fail now and then), so that a newcomer
// watches PRs being tested, batched, bisected and merged without a GitHub App or any GitHub at all.
import { type ChildProcess, spawn } from "node:child_process";
import { createHmac, generateKeyPairSync, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { openMigratedDatabase } from "../store/database.ts";
import { rememberRepository } from "../store/repositories.ts";
import { createToken } from "../store/tokens.ts";
import { queuePagesPath } from "../urls.ts";
import { brokenContent, CiSimulator, flakyContent } from "./ci-simulator.ts";
import type { AnyWebhookDelivery } from "./fake-github/index.ts";
import { type GitHubServer, startGitHubServer } from "./github-server.ts";

export interface SandboxOptions {
  /** The service's port (0: any free port). */
  port: number;
  /** Pull requests opened and submitted per minute. */
  prsPerMinute: number;
  /** Shares (0 to 1) of the pull requests that break the build, and that bring a flaky test. */
  brokenShare: number;
  flakyShare: number;
  /** The queue's settings. */
  mode: "single" | "parallel";
  concurrency: number;
  batch: boolean;
  /** How long CI takes, at least and at most. */
  ciMinMs: number;
  ciMaxMs: number;
  /** Stop opening pull requests after this many (Infinity: until stopped). */
  maxPullRequests: number;
  /** Told of each thing the sandbox does, a line at a time. */
  log: (line: string) => void;
}

export interface Sandbox {
  /** The service's address. */
  url: string;
  /** The queue's page. */
  dashboardUrl: string;
  /** A token of the sandbox's organization, to sign in to the pages and call the API. */
  token: string;
  /** `owner/name` of the simulated repository. */
  repository: string;
  github: GitHubServer;
  /** How many pull requests were opened so far. */
  readonly opened: number;
  stop(): Promise<void>;
}

const owner = "sandbox";
const name = "demo";
const branch = "main";
const installationId = 1;
const developer = "newcomer";
const requiredStatuses = ["ci/build", "tests"] as const;
const testBranchPrefix = "mq/";
const root = join(import.meta.dirname, "../..");

export async function startSandbox(options: SandboxOptions): Promise<Sandbox> {
  const github = await startGitHubServer();
  const repo = github.fake.createRepository(`${owner}/${name}`, {
    installationId,
    files: { "README.md": "# demo\n\nA repository of the Switchyard sandbox.\n" },
  });
  repo.setPermission(developer, "write");
  const workdir = mkdtempSync(join(tmpdir(), "switchyard-sandbox-"));
  const databaseUrl = `file:${join(workdir, "sandbox.db")}`;
  const token = await prepareDatabase(databaseUrl, github.host);
  const webhookSecret = randomBytes(16).toString("hex");
  const service = await startService({
    workdir,
    port: options.port === 0 ? await freePort() : options.port,
    env: {
      DATABASE_URL: databaseUrl,
      APP_ID: "1",
      PRIVATE_KEY: generateKeyPairSync("rsa", {
        modulusLength: 2048,
        privateKeyEncoding: { type: "pkcs1", format: "pem" },
        publicKeyEncoding: { type: "spki", format: "pem" },
      }).privateKey,
      WEBHOOK_SECRET: webhookSecret,
      GHE_HOST: github.host,
      GHE_PROTOCOL: "http",
      POLL_INTERVAL_SECONDS: "5",
      TEST_BRANCH_PREFIX: testBranchPrefix,
      LOG_LEVEL: "warn",
    },
  });
  const ci = new CiSimulator(
    github.fake,
    {
      requiredStatuses,
      ci: { flakeRate: 0, minDelayMs: options.ciMinMs, maxDelayMs: options.ciMaxMs },
    },
    Math.random,
    testBranchPrefix,
  );
  const deliveries = deliverWebhooks(github, service.url, webhookSecret, (delivery) => ci.observe(delivery));
  const api = async (path: string, body: unknown) => {
    const response = await fetch(`${service.url}/v1/${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-token": token },
      body: JSON.stringify(body),
    });
    const answer = (await response.json()) as { detail?: string };
    if (!response.ok) throw new Error(`${path} answered ${response.status}: ${answer.detail ?? ""}`);
    return answer;
  };
  const repoRef = { host: github.host, owner, name };
  await api("createQueue", {
    repo: repoRef,
    targetBranch: branch,
    requiredStatuses,
    mode: options.mode,
    concurrency: options.concurrency,
    batch: options.batch,
    batchingMinSize: 4,
    batchingMaxWaitTimeMinutes: 1,
  });

  let opened = 0;
  const feed = async () => {
    if (opened >= options.maxPullRequests) return;
    opened += 1;
    const draw = Math.random();
    const kind =
      draw < options.brokenShare
        ? "broken"
        : draw < options.brokenShare + options.flakyShare
          ? "flaky"
          : "fine";
    const content = kind === "broken" ? brokenContent : kind === "flaky" ? flakyContent : "works\n";
    const pr = repo.openPullRequest({
      title: `Change ${opened}${kind === "fine" ? "" : ` (${kind})`}`,
      author: developer,
      files: { [`changes/${opened}.txt`]: content },
    });
    try {
      await api("submitPullRequest", { repo: repoRef, targetBranch: branch, pr: { number: pr.number } });
      options.log(`opened and submitted #${pr.number}${kind === "fine" ? "" : `, ${kind}`}`);
    } catch (error) {
      options.log(`#${pr.number} was not submitted: ${(error as Error).message}`);
    }
  };
  const feeder = setInterval(() => void feed(), 60_000 / options.prsPerMinute);
  void feed();

  return {
    url: service.url,
    dashboardUrl: `${service.url}${queuePagesPath(repoRef, branch)}`,
    token,
    repository: `${owner}/${name}`,
    github,
    get opened() {
      return opened;
    },
    async stop() {
      clearInterval(feeder);
      await deliveries.stop();
      ci.stop();
      await service.stop();
      await github.close();
      rmSync(workdir, { recursive: true, force: true });
    },
  };
}

/** Migrates the sandbox's database, records the app's installation on the repository and makes a token. */
async function prepareDatabase(databaseUrl: string, host: string): Promise<string> {
  const store = await openMigratedDatabase(databaseUrl);
  try {
    const now = Date.now();
    await rememberRepository(store.db, { host, owner, name, installationId }, now);
    const { token } = await createToken(store.db, {
      organization: owner,
      owners: [],
      host,
      name: "sandbox",
      now,
    });
    return token;
  } finally {
    await store.close();
  }
}

interface Service {
  url: string;
  stop(): Promise<void>;
}

/** Runs src/main.ts as `npm start` does, and resolves once it answers. */
async function startService(options: {
  workdir: string;
  port: number;
  env: Record<string, string>;
}): Promise<Service> {
  const tsx = pathToFileURL(join(root, "node_modules/tsx/dist/loader.mjs")).href;
  const child: ChildProcess = spawn(process.execPath, ["--import", tsx, join(root, "src/main.ts")], {
    cwd: options.workdir,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: options.workdir,
      TMPDIR: tmpdir(),
      NODE_ENV: "production",
      HOST: "127.0.0.1",
      PORT: String(options.port),
      PUBLIC_URL: `http://127.0.0.1:${options.port}`,
      ...options.env,
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const reap = () => child.kill("SIGKILL");
  process.once("exit", reap);
  const url = `http://127.0.0.1:${options.port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited with code ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/ping`, { signal: AbortSignal.timeout(1_000) })).ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error("the service did not start within a minute");
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    url,
    async stop() {
      process.off("exit", reap);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** GitHub's webhooks, signed and posted in the order GitHub emits them; CI sees each first. */
function deliverWebhooks(
  github: GitHubServer,
  serviceUrl: string,
  secret: string,
  observe: (delivery: AnyWebhookDelivery) => void,
): { stop(): Promise<void> } {
  let sending: Promise<void> = Promise.resolve();
  const send = async (delivery: AnyWebhookDelivery) => {
    const body = JSON.stringify(delivery.payload);
    try {
      const response = await fetch(`${serviceUrl}/api/github/webhooks`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-github-event": delivery.name,
          "x-github-delivery": delivery.id,
          "x-hub-signature-256": `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`,
        },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      await response.arrayBuffer();
    } catch {
      // Lost, as GitHub loses a delivery now and then: the service's polling finds what it said.
    }
  };
  const timer = setInterval(() => {
    for (const delivery of github.fake.takeWebhooks()) {
      observe(delivery);
      sending = sending.then(() => send(delivery));
    }
  }, 50);
  return {
    async stop() {
      clearInterval(timer);
      await sending;
    },
  };
}

async function freePort(): Promise<number> {
  const { createServer } = await import("node:net");
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0));
    });
  });
}
