// npm run bench:api — cold start of the built service, RSS at idle, and the throughput of getQueue,
// getSubmittedPullRequest and listPullRequests with 50 PRs queued, each beside a bare Fastify route serving the
// same JSON (test/bench/bare-api.ts), at 1 and 10 connections, with autocannon. Everything runs on loopback
// against a temporary SQLite database; GitHub is never contacted (the repository's installation is already
// known). BENCH_SECONDS sets the length of each throughput measurement (default 5).
import { execSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { DEFAULT_QUEUE_SETTINGS, initialQueueState, type QueueState, step } from "../../src/queue/index.ts";
import { openMigratedDatabase } from "../../src/store/database.ts";
import { insertQueue } from "../../src/store/queues.ts";
import { insertQueueState, saveQueueStep } from "../../src/store/queue-states.ts";
import { rememberRepository } from "../../src/store/repositories.ts";
import { createToken } from "../../src/store/tokens.ts";
import { testPrivateKey } from "../support/github-app.ts";
import { freePort } from "../support/ports.ts";
import { aPr } from "../support/queue-factories.ts";
import { branchOf, fillQueues, prsPerQueue, queueCount } from "./queues-at-scale.ts";

const root = join(import.meta.dirname, "../..");
const startRuns = 5;
const queued = 50;
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const repo = { host: "github.com", owner: "acme", name: "widgets" };
const requests: Record<string, object> = {
  "/v1/getQueue": { repo, targetBranch: "main" },
  "/v1/getSubmittedPullRequest": { repo, targetBranch: "main", pr: { number: 25 } },
  "/v1/listPullRequests": { repo, targetBranch: "main" },
};

async function waitUntilUp(url: string, child: ChildProcess): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Starts the service with `command`, returns it, the milliseconds until /ping answered and the CPU time the process
 * had taken by then (all its threads; unlike the wall-clock time, it hardly depends on what else the machine runs).
 */
async function startService(command: string[], env: Record<string, string>) {
  const port = await freePort();
  const began = performance.now();
  const child = spawn(command[0]!, command.slice(1), {
    cwd: root,
    env: { ...process.env, ...env, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "warn" },
    stdio: "ignore",
  });
  await waitUntilUp(`http://127.0.0.1:${port}/ping`, child);
  return { child, port, startMs: performance.now() - began, cpuMs: cpuMs(child.pid!) };
}

/** User and system CPU time of a process so far, from /proc (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
  return kib / 1024;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Requests/s and latency of `path`, each request's body `body`, or `body()`'s value, chosen for each request. */
async function throughput(
  port: number,
  path: string,
  body: object | (() => object),
  connections: number,
  token: string,
  duration = seconds,
): Promise<{ rate: number; p50: number; p99: number }> {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}${path}`,
    method: "POST",
    connections,
    duration,
    headers: { "content-type": "application/json", "x-api-token": token },
    ...(typeof body === "function"
      ? { requests: [{ setupRequest: (request) => ({ ...request, body: JSON.stringify(body()) }) }] }
      : { body: JSON.stringify(body) }),
  });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${path} on port ${port}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  }
  return { rate: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

async function main(): Promise<void> {
  console.log("building (npm run build)…");
  execSync("npm run build --silent", { cwd: root, stdio: "inherit" });

  const dir = mkdtempSync(join(tmpdir(), "switchyard-bench-"));
  const databaseUrl = `file:${join(dir, "bench.db")}`;
  const store = await openMigratedDatabase(databaseUrl);
  const { token } = await createToken(store.db, {
    organization: "acme",
    owners: [],
    host: "github.com",
    now: Date.now(),
  });
  const repository = await rememberRepository(
    store.db,
    { host: "github.com", owner: "acme", name: "widgets", installationId: 1 },
    Date.now(),
  );
  const state = initialQueueState({
    queueId: "benchqueue01",
    targetBranch: "main",
    targetHeadSha: "a".repeat(40),
    testBranchPrefix: "mq/",
    settings: DEFAULT_QUEUE_SETTINGS,
  });
  const now = Date.now();
  let next: QueueState = state;
  for (let n = 1; n <= queued; n++) next = step(next, aPr(n), now - (queued - n) * 60_000).state;
  await store.db.transaction().execute(async (trx) => {
    await insertQueue(
      trx,
      { id: state.queueId, repositoryId: repository.id, branch: "main", settings: state.settings },
      now,
    );
    await insertQueueState(trx, state, now);
    const stored = { queueId: state.queueId, state, version: 1, nextCommandSeq: 1 };
    await saveQueueStep(trx, { stored, next, commands: [], now, prUrl: String });
  });
  await store.close();
  const env = {
    DATABASE_URL: databaseUrl,
    APP_ID: "1",
    PRIVATE_KEY: testPrivateKey(),
    WEBHOOK_SECRET: "bench",
  };

  const distStarts: number[] = [];
  const distCpu: number[] = [];
  for (let i = 0; i < startRuns; i++) {
    const { child, startMs, cpuMs } = await startService([process.execPath, "dist/src/main.js"], env);
    distStarts.push(startMs);
    distCpu.push(cpuMs);
    await stop(child);
  }
  const tsxStarts: number[] = [];
  const tsxCpu: number[] = [];
  for (let i = 0; i < startRuns; i++) {
    const { child, startMs, cpuMs } = await startService(
      [process.execPath, "--import", "tsx", "src/main.ts"],
      env,
    );
    tsxStarts.push(startMs);
    tsxCpu.push(cpuMs);
    await stop(child);
  }

  const { child, port } = await startService([process.execPath, "dist/src/main.js"], env);
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const idleRss = rssMiB(child.pid!);

  const bodies: Record<string, unknown> = {};
  for (const [path, body] of Object.entries(requests)) {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-token": token },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
    bodies[path] = await response.json();
  }
  const bodiesFile = join(dir, "bodies.json");
  writeFileSync(bodiesFile, JSON.stringify(bodies));
  const barePort = await freePort();
  const bare = spawn(
    process.execPath,
    ["--import", "tsx", "test/bench/bare-api.ts", String(barePort), bodiesFile],
    {
      cwd: root,
      stdio: "ignore",
    },
  );
  await waitUntilUp(`http://127.0.0.1:${barePort}/ping`, bare);

  // Both servers answer each request for a second first, so that neither is measured while its JIT warms up.
  for (const [path, body] of Object.entries(requests)) {
    for (const target of [port, barePort]) await throughput(target, path, body, 10, token, 1);
  }
  const results: string[] = [];
  /** Each route's requests/s at 10 connections, the figure the reads at scale are compared with. */
  const oneQueueRates = new Map<string, number>();
  for (const [path, body] of Object.entries(requests)) {
    for (const connections of [1, 10]) {
      const service = await throughput(port, path, body, connections, token);
      const baseline = await throughput(barePort, path, body, connections, token);
      if (connections === 10) oneQueueRates.set(path, service.rate);
      results.push(
        `${path.slice("/v1/".length).padEnd(24)} ${String(connections).padStart(2)} conn: ` +
          `${String(Math.round(service.rate)).padStart(6)} req/s vs bare ${String(Math.round(baseline.rate)).padStart(6)} ` +
          `= ${(service.rate / baseline.rate).toFixed(2)} (p50 ${service.p50} ms, p99 ${service.p99} ms)`,
      );
    }
  }
  const loadedRss = rssMiB(child.pid!);
  await stop(child);
  await stop(bare);
  const atScale = await readsAtScale(join(dir, "scale.db"), env, oneQueueRates);
  rmSync(dir, { recursive: true, force: true });

  console.log("\nSwitchyard API benchmark (SQLite, loopback, this machine)");
  console.log(
    `cold start, node dist/src/main.js (after build): median ${median(distStarts).toFixed(0)} ms over ${startRuns} starts [${distStarts.map((s) => s.toFixed(0)).join(", ")}], CPU ${median(distCpu)} ms`,
  );
  console.log(
    `cold start, npm start (tsx src/main.ts):         median ${median(tsxStarts).toFixed(0)} ms over ${startRuns} starts [${tsxStarts.map((s) => s.toFixed(0)).join(", ")}], CPU ${median(tsxCpu)} ms`,
  );
  console.log(
    `RSS at idle (3 s after start): ${idleRss.toFixed(1)} MiB; after the load: ${loadedRss.toFixed(1)} MiB`,
  );
  for (const line of results) console.log(line);
  for (const line of atScale) console.log(line);
}

/**
 * The three reads on a service holding 1,000 queues and 20,000 queued PRs, each request about a queue and PR chosen
 * at random, beside the figure of the service holding one queue at 10 connections.
 */
async function readsAtScale(
  path: string,
  env: Record<string, string>,
  oneQueueRates: ReadonlyMap<string, number>,
): Promise<string[]> {
  const databaseUrl = `file:${path}`;
  const store = await openMigratedDatabase(databaseUrl);
  const { token } = await createToken(store.db, {
    organization: "acme",
    owners: [],
    host: "github.com",
    now: Date.now(),
  });
  const repository = await rememberRepository(store.db, { ...repo, installationId: 1 }, Date.now());
  await fillQueues(store, repository, (queue) => queue < 10);
  await store.close();
  const { child, port } = await startService([process.execPath, "dist/src/main.js"], {
    ...env,
    DATABASE_URL: databaseUrl,
  });
  const lines = [
    `reads spread at random over ${queueCount.toLocaleString("en-US")} queues / ${(queueCount * prsPerQueue).toLocaleString("en-US")} queued PRs:`,
  ];
  const randomQueue = () => ({ repo, targetBranch: branchOf(Math.floor(Math.random() * queueCount)) });
  const bodies: Record<string, () => object> = {
    "/v1/getQueue": randomQueue,
    "/v1/getSubmittedPullRequest": () => ({
      ...randomQueue(),
      pr: { number: 1 + Math.floor(Math.random() * prsPerQueue) },
    }),
    "/v1/listPullRequests": randomQueue,
  };
  for (const [route, body] of Object.entries(bodies)) await throughput(port, route, body, 10, token, 1);
  for (const [route, body] of Object.entries(bodies)) {
    const spread = await throughput(port, route, body, 10, token);
    const single = oneQueueRates.get(route)!;
    lines.push(
      `${route.slice("/v1/".length).padEnd(24)} 10 conn: ${String(Math.round(spread.rate)).padStart(6)} req/s vs one queue ${String(Math.round(single)).padStart(6)} = ${(spread.rate / single).toFixed(2)} (p50 ${spread.p50} ms, p99 ${spread.p99} ms)`,
    );
  }
  await stop(child);
  return lines;
}

await main();
