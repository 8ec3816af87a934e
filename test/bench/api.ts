// npm run bench:api — cold start of the built service, RSS at idle, and the throughput of getQueue,
// getSubmittedPullRequest and listPullRequests with 50 PRs queued, each beside a bare Fastify route sending the
// same bytes as a ready string (test/bench/bare-api.ts), at 1 and 10 connections, with autocannon. The service runs
// as users run it: built (`npm run build`, `node dist/src/main.js`), its own process, the default log level, its
// output written to a file. The two servers are measured in turns (service, bare, service, bare, …) in the same run,
// so that what else the machine does weighs on both alike; the ratio is of the two medians. Everything runs on
// loopback against a temporary SQLite database; GitHub is never contacted (the repository's installation is
// already known). Beside requests/s, each line gives the CPU time per request of each server process (from /proc),
// which hardly depends on what else the machine runs; its ratio (bare's over the service's) is the figure to trust
// on a busy machine. BENCH_SECONDS sets the length of each turn (default 2), BENCH_ROUNDS the turns each
// (default 3), BENCH_STARTS the cold starts timed each way (default 3).
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import Fastify from "fastify";
import { DEFAULT_QUEUE_SETTINGS, initialQueueState, type QueueState, step } from "../../src/queue/index.ts";
import { aPr } from "../support/queue-factories.ts";
import { branchOf, fillQueues, prsPerQueue, queueCount } from "./queues-at-scale.ts";
import {
  benchDatabase,
  cpuMs,
  buildService,
  distCommand,
  memoryMiB,
  repo,
  startService,
  stop,
  tsxCommand,
} from "./service-process.ts";

const startRuns = Number(process.env.BENCH_STARTS ?? 3);
const queued = 50;
const seconds = Number(process.env.BENCH_SECONDS ?? 2);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const requests: Record<string, object> = {
  "/v1/getQueue": { repo, targetBranch: "main" },
  "/v1/getSubmittedPullRequest": { repo, targetBranch: "main", pr: { number: 25 } },
  "/v1/listPullRequests": { repo, targetBranch: "main" },
};

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

interface Measure {
  rate: number;
  p50: number;
  p99: number;
  /** The server process's CPU time per request, in µs (all its threads): hardly depends on what else runs. */
  cpuPerRequest: number;
}

/** A server to measure: where it listens and its process. */
interface Server {
  port: number;
  pid: number;
}

/** Requests/s and latency of `path`, each request's body `body`, or `body()`'s value, chosen for each request. */
async function throughput(
  { port, pid }: Server,
  path: string,
  body: object | (() => object),
  connections: number,
  token: string,
  duration = seconds,
): Promise<Measure> {
  const cpuBefore = cpuMs(pid);
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
  const cpuPerRequest = ((cpuMs(pid) - cpuBefore) * 1000) / result.requests.total;
  return { rate: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, cpuPerRequest };
}

async function main(): Promise<void> {
  buildService();

  const dir = mkdtempSync(join(tmpdir(), "switchyard-bench-"));
  const { env, token } = await benchDatabase(join(dir, "bench.db"), async (store, repository) => {
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
    const queue = {
      id: state.queueId,
      repositoryId: repository.id,
      branch: "main",
      settings: state.settings,
    };
    await store.createQueue(queue, state, now);
    await store.inQueueTransaction(state.queueId, async (trx) => {
      const stored = (await trx.loadQueueState(state.queueId))!;
      await trx.saveQueueStep({ stored, next, commands: [], now, prUrl: String });
    });
  });

  const distStarts: number[] = [];
  const distCpu: number[] = [];
  for (let i = 0; i < startRuns; i++) {
    const { child, startMs, cpuMs } = await startService(distCommand, env);
    distStarts.push(startMs);
    distCpu.push(cpuMs);
    await stop(child);
  }
  const tsxStarts: number[] = [];
  const tsxCpu: number[] = [];
  for (let i = 0; i < startRuns; i++) {
    const { child, startMs, cpuMs } = await startService(tsxCommand, env);
    tsxStarts.push(startMs);
    tsxCpu.push(cpuMs);
    await stop(child);
  }

  const serviceLog = join(dir, "service.log");
  const { child, port } = await startService(distCommand, env, serviceLog);
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const idleRss = memoryMiB(child.pid!);

  const answers: Record<string, { type: string; body: string }> = {};
  for (const [path, body] of Object.entries(requests)) {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-token": token },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
    answers[path] = { type: response.headers.get("content-type")!, body: await response.text() };
  }
  const answersFile = join(dir, "answers.json");
  writeFileSync(answersFile, JSON.stringify(answers));
  const bare = await startService(
    [process.execPath, "--import", "tsx", "test/bench/bare-api.ts", answersFile],
    {},
  );
  const serviceServer = { port, pid: child.pid! };
  const bareServer = { port: bare.port, pid: bare.child.pid! };

  // Both servers answer each request for a second first, so that neither is measured while its JIT warms up.
  for (const [path, body] of Object.entries(requests)) {
    for (const target of [serviceServer, bareServer]) await throughput(target, path, body, 10, token, 1);
  }
  const results: string[] = [];
  /** Each route's requests/s at 10 connections, the figure the reads at scale are compared with. */
  const oneQueueRates = new Map<string, number>();
  for (const [path, body] of Object.entries(requests)) {
    for (const connections of [1, 10]) {
      const service: Measure[] = [];
      const baseline: Measure[] = [];
      for (let round = 0; round < rounds; round++) {
        service.push(await throughput(serviceServer, path, body, connections, token));
        baseline.push(await throughput(bareServer, path, body, connections, token));
      }
      const serviceRate = median(service.map((m) => m.rate));
      const bareRate = median(baseline.map((m) => m.rate));
      if (connections === 10) oneQueueRates.set(path, serviceRate);
      const bytes = Buffer.byteLength(answers[path]!.body);
      const serviceCpu = median(service.map((m) => m.cpuPerRequest));
      const bareCpu = median(baseline.map((m) => m.cpuPerRequest));
      results.push(
        `${path.slice("/v1/".length).padEnd(24)} ${String(connections).padStart(2)} conn (${(bytes / 1024).toFixed(1)} KiB): ` +
          `${String(Math.round(serviceRate)).padStart(6)} req/s vs bare ${String(Math.round(bareRate)).padStart(6)} ` +
          `= ${(serviceRate / bareRate).toFixed(2)} (p50 ${median(service.map((m) => m.p50))} ms, ` +
          `p99 ${median(service.map((m) => m.p99))} ms; turns ${service.map((m, i) => (m.rate / baseline[i]!.rate).toFixed(2)).join(" ")}); ` +
          `CPU per request ${serviceCpu.toFixed(0)} µs vs bare ${bareCpu.toFixed(0)} µs = ${(bareCpu / serviceCpu).toFixed(2)}`,
      );
    }
  }
  const loadedRss = memoryMiB(child.pid!);
  await stop(child);
  const logBytes = statSync(serviceLog).size;
  await stop(bare.child);
  const atScale = await readsAtScale(join(dir, "scale.db"), oneQueueRates);
  rmSync(dir, { recursive: true, force: true });

  console.log("\nSwitchyard API benchmark (SQLite, loopback, this machine)");
  console.log(
    `service: node dist/src/main.js, default log level, output to a file (${(logBytes / 1024).toFixed(0)} KiB written); ` +
      `bare: Fastify ${Fastify().version}, logging off, the same bytes as a ready string; ${rounds} turns of ${seconds} s each, in alternation`,
  );
  if (startRuns > 0) {
    console.log(
      `cold start, node dist/src/main.js (after build): median ${median(distStarts).toFixed(0)} ms over ${startRuns} starts [${distStarts.map((s) => s.toFixed(0)).join(", ")}], CPU ${median(distCpu)} ms`,
    );
    console.log(
      `cold start, npm start (tsx src/main.ts):         median ${median(tsxStarts).toFixed(0)} ms over ${startRuns} starts [${tsxStarts.map((s) => s.toFixed(0)).join(", ")}], CPU ${median(tsxCpu)} ms`,
    );
  }
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
async function readsAtScale(path: string, oneQueueRates: ReadonlyMap<string, number>): Promise<string[]> {
  const { env, token } = await benchDatabase(path, (store, repository) =>
    fillQueues(store, repository, (queue) => queue < 10),
  );
  const { child, port } = await startService(distCommand, env);
  const server = { port, pid: child.pid! };
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
  for (const [route, body] of Object.entries(bodies)) await throughput(server, route, body, 10, token, 1);
  for (const [route, body] of Object.entries(bodies)) {
    const spread = await throughput(server, route, body, 10, token);
    const single = oneQueueRates.get(route)!;
    lines.push(
      `${route.slice("/v1/".length).padEnd(24)} 10 conn: ${String(Math.round(spread.rate)).padStart(6)} req/s vs one queue ${String(Math.round(single)).padStart(6)} = ${(spread.rate / single).toFixed(2)} (p50 ${spread.p50} ms, p99 ${spread.p99} ms)`,
    );
  }
  await stop(child);
  return lines;
}

await main();
