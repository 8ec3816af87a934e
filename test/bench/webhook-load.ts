// Webhook load for npm run bench:queue: signed status and check_run deliveries on testing runs, 8 at a time from another
// process (webhook-sender.ts), end to end (HTTP → translation → step → transaction → answer), on one queue or spread
// over several, on SQLite or PostgreSQL, and with the database also holding 1,000 other queues (the scale target:
// within 2× of the figures without them). The service runs as users run it: built (`node dist/src/main.js`), its own
// process, the real HTTP server, the default log level with its output written to a file. GitHub is the fake
// (src/sandbox/github-server.ts) over HTTP in this process: its CPU is not the service's, whose CPU is read from
// /proc. Beside it, in turns (service, bare, service, bare, …), runs a bare Fastify 5 endpoint doing the least a
// webhook endpoint must do with the same deliveries (bare-webhooks.ts: signature, parse, and one durable insert for
// deliveries that change a queue, one read for those that change nothing).
import { type ChildProcess, fork } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { type GitHubServer, startGitHubServer } from "../../src/sandbox/github-server.ts";
import type { FakeRepository } from "../../src/sandbox/fake-github/index.ts";
import { type Dialect, openMigratedDatabase } from "../../src/store/database.ts";
import { recordRepository, rememberRepository } from "../../src/store/repositories.ts";
import { createToken } from "../../src/store/tokens.ts";
import { testPrivateKey, testWebhookSecret } from "../support/github-app.ts";
import { T0 } from "../support/queue-factories.ts";
import { deliverWebhook } from "../support/webhooks.ts";
import { fillQueues, prsPerQueue, queueCount } from "./queues-at-scale.ts";
import { cpuMs, distCommand, memoryMiB, startService, stop } from "./service-process.ts";
import type { SendOrder, SendReport } from "./webhook-sender.ts";

const concurrentDeliveries = 8;
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);

interface Delivery {
  name: string;
  payload: unknown;
}

export interface LoadResult {
  events: number;
  seconds: number;
  /** Answer times in ms, sorted. */
  latencies: number[];
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The service under load: its process, where it listens, and the fake GitHub's repository. */
interface ServiceUnderLoad {
  child: ChildProcess;
  url: string;
  github: GitHubServer;
  repo: FakeRepository;
  repoRef: { host: string; owner: string; name: string };
  api(path: string, body: Record<string, unknown>): Promise<any>;
  /** Delivers the webhooks the fake GitHub emitted so far, in order; answers how many there were. */
  deliverWebhooks(): Promise<number>;
}

/** A fresh database of `dialect`: a SQLite file in `dir`, or a PostgreSQL schema of its own (TEST_DATABASE_URL). */
async function freshDatabase(dialect: Dialect, dir: string, name: string) {
  if (dialect === "sqlite") return { url: `file:${join(dir, `${name}.db`)}`, drop: async () => undefined };
  const base = process.env.TEST_DATABASE_URL!;
  const schema = `switchyard_bench_${name.replace(/\W/g, "_")}_${process.pid}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`drop schema if exists ${schema} cascade`);
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const url = new URL(base);
  // BENCH_PG_OPTIONS adds server settings to both servers' connections, e.g. "-c synchronous_commit=off" to see what
  // waiting for the WAL's flush at each commit costs.
  url.searchParams.set("options", `-c search_path=${schema} ${process.env.BENCH_PG_OPTIONS ?? ""}`.trim());
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: base });
      await client.connect();
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    },
  };
}

/** `queues` queues, each with 4 PRs queued and testing; the shas their runs test. */
async function testingQueues(service: ServiceUnderLoad, queues: number): Promise<string[]> {
  const { repo, repoRef } = service;
  const branches = Array.from({ length: queues }, (_, q) => (q === 0 ? "main" : `release-${q}`));
  let prNumber = 0;
  for (const branch of branches) {
    if (branch !== "main") repo.createBranch(branch);
    await service.api("createQueue", {
      repo: repoRef,
      targetBranch: branch,
      requiredStatuses: ["ci"],
      concurrency: 4,
    });
    for (let n = 1; n <= 4; n++) {
      prNumber++;
      repo.openPullRequest({
        number: prNumber,
        base: branch,
        title: `Change ${prNumber}`,
        author: "alice",
        files: { [`src/${prNumber}.ts`]: "x" },
      });
      await service.api("submitPullRequest", {
        repo: repoRef,
        targetBranch: branch,
        pr: { number: prNumber },
      });
    }
  }
  // The service creates each run's branch on GitHub; GitHub's webhooks about it tell the service its sha.
  const shas: string[] = [];
  const deadline = performance.now() + 60_000;
  for (const [q, branch] of branches.entries()) {
    for (;;) {
      await service.deliverWebhooks();
      const pr = await service.api("getSubmittedPullRequest", {
        repo: repoRef,
        targetBranch: branch,
        pr: { number: 4 * q + 1 },
      });
      const details =
        typeof pr.testRunId === "string"
          ? await service.api("getMergeQueueTestingDetails", {
              repo: repoRef,
              targetBranch: branch,
              testRunId: pr.testRunId,
            })
          : {};
      if (typeof details.testBranchSha === "string") {
        shas.push(details.testBranchSha);
        break;
      }
      if (performance.now() > deadline) throw new Error(`no run is testing on ${branch} after a minute`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  return shas;
}

/**
 * Deliveries per burst, after the warm-up's: each burst sends fresh ones, never the warm-up's again. The warm-up is
 * long enough for the JIT to settle: after 500, the process's first burst still cost half as much CPU again.
 */
const warmUpDeliveries = 2000;
const burstDeliveries = 3000;

/**
 * What CI sends about the runs' commits, round robin over the queues: half of it pending statuses of 50 jobs, half
 * check runs of 50 other jobs created and then completed. None is required but `ci`, whose own check run starts on
 * every commit and never completes, so that the runs stay in flight (and the check suite incomplete) throughout.
 */
function ciDeliveries(repo: FakeRepository, shas: readonly string[], count: number): Delivery[] {
  const deliveries: Delivery[] = [];
  const add = (delivery: Delivery) => deliveries.push({ name: delivery.name, payload: delivery.payload });
  for (const sha of shas) repo.reportCheckRun(sha, "ci", { status: "in_progress" }).forEach(add);
  const checkRuns = shas.map((sha) =>
    (function* () {
      for (let job = 0; ; job = (job + 1) % 50) {
        yield* repo.reportCheckRun(sha, `check-${job}`, { status: "queued" });
        yield* repo.reportCheckRun(sha, `check-${job}`, { conclusion: "success" });
      }
    })(),
  );
  for (let i = 0; deliveries.length < count; i++) {
    const q = i % shas.length;
    if (Math.floor(i / shas.length) % 2 === 0) add(repo.reportStatus(shas[q]!, `job-${i % 50}`, "pending"));
    else add(checkRuns[q]!.next().value!);
  }
  return deliveries;
}

/**
 * The load where every delivery changes a run: statuses of 50 jobs on the runs' commits, each job going from pending
 * to success, then pending again (a re-run) and so on, so that each report is newer than the one the run holds. No
 * delivery is inert: each is stepped and saved.
 */
function changingDeliveries(repo: FakeRepository, shas: readonly string[], count: number): Delivery[] {
  return Array.from({ length: count }, (_, i) => {
    const job = Math.floor(i / shas.length) % 50;
    const round = Math.floor(i / (shas.length * 50));
    const delivery = repo.reportStatus(
      shas[i % shas.length]!,
      `job-${job}`,
      round % 2 === 0 ? "pending" : "success",
    );
    return { name: delivery.name, payload: delivery.payload };
  });
}

export interface LoadOptions {
  dialect: Dialect;
  queues: number;
  /** Every delivery a report newer than the run holds (changingDeliveries), rather than CI's mix. */
  everyEventChanges?: boolean;
  /** The database also holds the 1,000 queues of queues-at-scale.ts, in a repository of their own. */
  atScale?: boolean;
}

/** Queues of the scale that test their first PR, as many as the load's: the scheduler looks at those. */
const runningAtScale = 10;

type Send = (
  target: { url: string },
  order: Omit<SendOrder, "concurrency" | "url" | "deliveries">,
) => Promise<LoadResult>;

/** Sends the deliveries from the sender process and waits for its report. */
function deliver(sender: ChildProcess, order: Omit<SendOrder, "concurrency">): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const failed = () => reject(new Error("the webhook sender failed"));
    sender.once("exit", failed);
    sender.once("message", (report: SendReport) => {
      sender.off("exit", failed);
      const latencies = [...report.latencies].sort((a, b) => a - b);
      resolve({ events: latencies.length, seconds: report.seconds, latencies });
    });
    sender.send({ ...order, concurrency: concurrentDeliveries });
  });
}

/**
 * The service (built, its own process) on a fresh database against the fake GitHub, its queues testing, and the
 * bare endpoint beside it; `work` sends the deliveries to either. Everything is stopped and dropped afterwards.
 */
async function withLoad<T>(
  { dialect, queues, atScale = false, everyEventChanges = false }: LoadOptions,
  deliveryCount: number,
  work: (send: Send, service: ServiceUnderLoad, bare: { url: string; child: ChildProcess }) => Promise<T>,
): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-bench-queue-"));
  const github = await startGitHubServer();
  const repo = github.fake.createRepository("acme/widgets", {
    installationId: 4242,
    files: { "README.md": "# widgets\n", "src/a.ts": "a\n", "src/b.ts": "b\n" },
  });
  github.fake.takeWebhooks();
  const repoRef = { host: github.host, owner: "acme", name: "widgets" };
  const database = await freshDatabase(dialect, dir, "service");
  const bareDatabase = await freshDatabase(dialect, dir, "bare");
  const children: ChildProcess[] = [];
  const sender = fork(fileURLToPath(new URL("./webhook-sender.ts", import.meta.url)), {
    execArgv: ["--import", "tsx"],
  });
  try {
    const store = await openMigratedDatabase(database.url);
    let token: string;
    try {
      await rememberRepository(store.db, { ...repoRef, installationId: 4242 }, Date.now());
      ({ token } = await createToken(store.db, {
        organization: "acme",
        owners: [],
        host: github.host,
        now: Date.now(),
      }));
      if (atScale) {
        const big = await recordRepository(store.db, { host: github.host, owner: "acme", name: "big" }, T0);
        await fillQueues(store, big, (queue) => queue < runningAtScale);
      }
    } finally {
      await store.close();
    }
    const { child, port } = await startService(
      distCommand,
      {
        DATABASE_URL: database.url,
        APP_ID: "1",
        PRIVATE_KEY: testPrivateKey(),
        WEBHOOK_SECRET: testWebhookSecret,
        GHE_HOST: github.host,
        GHE_PROTOCOL: "http",
      },
      join(dir, "service.log"),
    );
    children.push(child);
    const url = `http://127.0.0.1:${port}`;
    const service: ServiceUnderLoad = {
      child,
      url,
      github,
      repo,
      repoRef,
      async api(path, body) {
        const response = await fetch(`${url}/v1/${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-api-token": token },
          body: JSON.stringify(body),
        });
        const answer = await response.json();
        if (!response.ok) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(answer)}`);
        return answer;
      },
      async deliverWebhooks() {
        const webhooks = github.fake.takeWebhooks();
        for (const webhook of webhooks) {
          const response = await deliverWebhook(url, webhook.name, webhook.payload, webhook.id);
          if (response.status >= 400)
            throw new Error(`webhook ${webhook.name} answered ${response.status}: ${await response.text()}`);
        }
        return webhooks.length;
      },
    };
    const shas = await testingQueues(service, queues);
    // The service polled GitHub as it started (before any queue existed) and polls again every
    // POLL_INTERVAL_SECONDS (60 s by default, longer than the load): the reports made below reach it only as the
    // deliveries sent. The webhooks the fake emits while making them are those deliveries: not sent twice.
    const deliveries = (everyEventChanges ? changingDeliveries : ciDeliveries)(repo, shas, deliveryCount);
    github.fake.takeWebhooks();
    const bare = await startService(
      [
        process.execPath,
        "--import",
        "tsx",
        "test/bench/bare-webhooks.ts",
        bareDatabase.url,
        testWebhookSecret,
      ],
      {},
    );
    children.push(bare.child);
    const send: Send = (target, order) => deliver(sender, { ...order, url: target.url, deliveries });
    return await work(send, service, { url: `http://127.0.0.1:${bare.port}`, child: bare.child });
  } finally {
    sender.kill();
    for (const child of children) await stop(child);
    await github.close();
    await database.drop();
    await bareDatabase.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function describe({ dialect, queues, atScale, everyEventChanges }: LoadOptions): string {
  const spread = queues === 1 ? "one queue" : `${queues} queues`;
  const scale = atScale
    ? ` among ${queueCount.toLocaleString("en-US")} queues / ${(queueCount * prsPerQueue).toLocaleString("en-US")} queued PRs`
    : "";
  const events = everyEventChanges
    ? "status events each newer than the run holds"
    : "status and check_run events on testing runs";
  return `${events}, ${dialect === "sqlite" ? "SQLite" : "PostgreSQL"}, ${spread}${scale}, ${concurrentDeliveries} concurrent deliveries`;
}

export interface WebhookFigures {
  eventsPerSecond: number;
  p99Ms: number;
  cpuMicrosPerEvent: number;
  line: string;
}

interface Burst extends LoadResult {
  rate: number;
  cpuMicros: number;
  /** The CPU time of the PostgreSQL server on this machine per event, when there is one. */
  databaseCpuMicros: number | undefined;
}

/**
 * The CPU time every `postgres` process on this machine took so far (backends, WAL writer, checkpointer, autovacuum,
 * and the postmaster's exited children): undefined when none runs here. Only the load's server runs it during a burst
 * (the bare endpoint's turns are apart), so the difference over a burst is PostgreSQL's share of that burst.
 */
function postgresCpuMs(): number | undefined {
  let ticks: number | undefined;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    if (!stat.includes(" (postgres) ")) continue;
    const fields = stat.split(") ")[1]!.split(" ");
    ticks = (ticks ?? 0) + [11, 12, 13, 14].reduce((sum, field) => sum + Number(fields[field]), 0);
  }
  return ticks === undefined ? undefined : ticks * 10;
}

/** One burst to `target` (a process): events/s, answer times and the process's CPU time per event. */
async function burst(
  send: Send,
  target: { url: string; pid: number },
  from: number,
  runId: string,
): Promise<Burst> {
  const cpuBefore = cpuMs(target.pid);
  const databaseBefore = postgresCpuMs();
  const result = await send(target, { count: burstDeliveries, from, runId });
  const databaseAfter = postgresCpuMs();
  return {
    ...result,
    rate: result.events / result.seconds,
    cpuMicros: ((cpuMs(target.pid) - cpuBefore) * 1000) / result.events,
    databaseCpuMicros:
      databaseBefore === undefined || databaseAfter === undefined
        ? undefined
        : ((databaseAfter - databaseBefore) * 1000) / result.events,
  };
}

/** The deliveries each load needs: the warm-up's, then a fresh burst per turn. */
const deliveriesNeeded = warmUpDeliveries + rounds * burstDeliveries;

/**
 * Both processes warmed up with 2,000 deliveries, then `rounds` bursts of 3,000 each (BENCH_ROUNDS, default 3), in
 * turns; the service's events per second, answer times and CPU per event (medians of its bursts) beside the bare
 * endpoint's, and beside them
 * `without`'s, the same load's figures without what these options add (the scale).
 */
export async function benchWebhooks(options: LoadOptions, without?: WebhookFigures): Promise<WebhookFigures> {
  return withLoad(options, deliveriesNeeded, async (send, service, bare) => {
    const serviceTarget = { url: service.url, pid: service.child.pid! };
    const bareTarget = { url: bare.url, pid: bare.child.pid! };
    await send(serviceTarget, { count: warmUpDeliveries, runId: "warm" });
    await send(bareTarget, { count: warmUpDeliveries, runId: "warm" });
    const services: Burst[] = [];
    const bares: Burst[] = [];
    for (let round = 0; round < rounds; round++) {
      const from = warmUpDeliveries + round * burstDeliveries;
      services.push(await burst(send, serviceTarget, from, `bench${round}`));
      bares.push(await burst(send, bareTarget, from, `bench${round}`));
    }
    const load = loadavg()[0]!.toFixed(2);
    const latencies = services.flatMap((s) => s.latencies).sort((a, b) => a - b);
    const p = (q: number) => percentile(latencies, q).toFixed(1);
    const rate = median(services.map((s) => s.rate));
    const bareRate = median(bares.map((s) => s.rate));
    // The ratio of each turn, the service's burst over the bare burst right after it, weighs both under the same
    // load; the median of those is the figure (the machine's load swings between turns more than the ratio does).
    const turnRatios = services.map((s, i) => s.rate / bares[i]!.rate);
    const cpu = median(services.map((s) => s.cpuMicros));
    const bareCpu = median(bares.map((s) => s.cpuMicros));
    const databaseCpu = (bursts: Burst[]) => {
      const each = bursts.flatMap((s) => s.databaseCpuMicros ?? []);
      return each.length === bursts.length ? median(each).toFixed(0) : undefined;
    };
    const database =
      options.dialect === "postgres" && databaseCpu(services) !== undefined
        ? `, PostgreSQL's CPU ${databaseCpu(services)} µs per event vs bare ${databaseCpu(bares)} µs`
        : "";
    const figures = {
      eventsPerSecond: Math.round(rate),
      p99Ms: percentile(latencies, 99),
      cpuMicrosPerEvent: Math.round(cpu),
    };
    const beside =
      without === undefined
        ? ""
        : `; without them ${without.eventsPerSecond} events/s, p99 ${without.p99Ms.toFixed(1)} ms, ${without.cpuMicrosPerEvent} µs per event (CPU ×${(figures.cpuMicrosPerEvent / without.cpuMicrosPerEvent).toFixed(2)})`;
    const line =
      `webhooks end to end (${describe(options)}): ${figures.eventsPerSecond} events/s vs bare ${Math.round(bareRate)}, ` +
      `median of the turns' ratios ${median(turnRatios).toFixed(2)} (turns ${turnRatios.map((r) => r.toFixed(2)).join(" ")}), answer p50 ${p(50)} ms, p99 ${p(99)} ms, ` +
      `service CPU ${figures.cpuMicrosPerEvent} µs per event vs bare ${bareCpu.toFixed(0)} µs = ${(bareCpu / cpu).toFixed(2)}${database}; load average ${load}${beside}`;
    return { ...figures, line };
  });
}

/** The load for `minutes`: the service's RSS after the first minute and at the end (no leak: within 20%). */
export async function soakWebhooks(options: LoadOptions, minutes: number): Promise<string> {
  return withLoad(options, deliveriesNeeded, async (send, service) => {
    const target = { url: service.url };
    const pid = service.child.pid!;
    const started = performance.now();
    const endsAt = started + minutes * 60_000;
    let rssAfterMinute: number | undefined;
    let total = 0;
    let round = 0;
    while (performance.now() < endsAt) {
      const durationMs = Math.min(10_000, endsAt - performance.now());
      const { events } = await send(target, { durationMs, runId: `soak${round++}` });
      total += events;
      if (rssAfterMinute === undefined && performance.now() - started >= 60_000)
        rssAfterMinute = memoryMiB(pid);
    }
    const end = memoryMiB(pid);
    const seconds = (performance.now() - started) / 1000;
    const growth =
      rssAfterMinute === undefined
        ? "n/a"
        : `${(((end - rssAfterMinute) / rssAfterMinute) * 100).toFixed(1)}%`;
    return `webhook soak (${describe(options)}) for ${minutes} min: ${Math.round(total / seconds)} events/s, service RSS after 1 min ${rssAfterMinute === undefined ? "n/a" : `${rssAfterMinute.toFixed(0)} MiB`}, at the end ${end.toFixed(0)} MiB (${growth}); load average ${loadavg()[0]!.toFixed(2)}`;
  });
}
