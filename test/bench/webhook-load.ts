// Webhook load for npm run bench:queue: signed status and check_run deliveries on testing runs, 8 at a time from another process
// (webhook-sender.ts), end to end (HTTP → translation → step → transaction → answer), on one queue or spread over
// several, on SQLite or PostgreSQL, and with the database also holding 1,000 other queues (the scale target: within
// 2× of the figures without them). The scheduler's timer runs throughout, as in the service (its first poll before
// the load).
import { type ChildProcess, fork } from "node:child_process";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import type { Dialect } from "../../src/store/database.ts";
import { recordRepository } from "../../src/store/repositories.ts";
import { T0 } from "../support/queue-factories.ts";
import { repoRef as repo, type Scenario, startScenario } from "../support/queue-scenario.ts";
import type { SendOrder, SendReport } from "./webhook-sender.ts";
import { fillQueues, prsPerQueue, queueCount } from "./queues-at-scale.ts";

const concurrentDeliveries = 8;

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

/** The sha under test of the run that tests the PR numbered `prNumber` of the queue on `branch`. */
async function testingSha(scenario: Scenario, branch: string, prNumber: number): Promise<string> {
  const pr = (
    await scenario.api("getSubmittedPullRequest", { repo, targetBranch: branch, pr: { number: prNumber } })
  ).body;
  const details = (
    await scenario.api("getMergeQueueTestingDetails", { repo, targetBranch: branch, testRunId: pr.testRunId })
  ).body;
  if (typeof details.testBranchSha !== "string") throw new Error(`no run is testing on ${branch}`);
  return details.testBranchSha;
}

/** `queues` queues, each with 4 PRs queued and testing; the shas their runs test. */
async function testingQueues(scenario: Scenario, queues: number): Promise<string[]> {
  const branches = Array.from({ length: queues }, (_, q) => (q === 0 ? "main" : `release-${q}`));
  let prNumber = 0;
  for (const branch of branches) {
    if (branch !== "main") scenario.repo.createBranch(branch);
    await scenario.api("createQueue", {
      repo,
      targetBranch: branch,
      requiredStatuses: ["ci"],
      concurrency: 4,
    });
    for (let n = 1; n <= 4; n++) {
      prNumber++;
      scenario.repo.openPullRequest({
        number: prNumber,
        base: branch,
        title: `Change ${prNumber}`,
        author: "alice",
        files: { [`src/${prNumber}.ts`]: "x" },
      });
      await scenario.api("submitPullRequest", { repo, targetBranch: branch, pr: { number: prNumber } });
    }
  }
  await scenario.settle();
  const shas = [];
  for (const [q, branch] of branches.entries()) shas.push(await testingSha(scenario, branch, 4 * q + 1));
  return shas;
}

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
 * Deliveries per burst, after the warm-up's: the burst sends fresh ones, never the warm-up's again. The warm-up is
 * long enough for the JIT to settle: after 500, the process's first burst still cost half as much CPU again.
 */
const warmUpDeliveries = 2000;
const burstDeliveries = 3000;

/**
 * What CI sends about the runs' commits, round robin over the queues: half of it pending statuses of 50 jobs, half
 * check runs of 50 other jobs created and then completed. None is required but `ci`, whose own check run starts on
 * every commit and never completes, so that the runs stay in flight (and the check suite incomplete) throughout.
 */
function ciDeliveries(scenario: Scenario, shas: readonly string[], count: number): Delivery[] {
  const deliveries: Delivery[] = [];
  const add = (delivery: Delivery) => deliveries.push({ name: delivery.name, payload: delivery.payload });
  for (const sha of shas) scenario.repo.reportCheckRun(sha, "ci", { status: "in_progress" }).forEach(add);
  const checkRuns = shas.map((sha) =>
    (function* () {
      for (let job = 0; ; job = (job + 1) % 50) {
        yield* scenario.repo.reportCheckRun(sha, `check-${job}`, { status: "queued" });
        yield* scenario.repo.reportCheckRun(sha, `check-${job}`, { conclusion: "success" });
      }
    })(),
  );
  for (let i = 0; deliveries.length < count; i++) {
    const q = i % shas.length;
    if (Math.floor(i / shas.length) % 2 === 0)
      add(scenario.repo.reportStatus(shas[q]!, `job-${i % 50}`, "pending"));
    else add(checkRuns[q]!.next().value!);
  }
  return deliveries;
}

/**
 * The load where every delivery changes a run: statuses of 50 jobs on the runs' commits, each job going from pending
 * to success, then pending again (a re-run) and so on, so that each report is newer than the one the run holds. No
 * delivery is inert: each is stepped and saved.
 */
function changingDeliveries(scenario: Scenario, shas: readonly string[], count: number): Delivery[] {
  return Array.from({ length: count }, (_, i) => {
    const job = Math.floor(i / shas.length) % 50;
    const round = Math.floor(i / (shas.length * 50));
    const delivery = scenario.repo.reportStatus(
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

async function withLoad<T>(
  { dialect, queues, atScale = false, everyEventChanges = false }: LoadOptions,
  work: (
    send: (order: Omit<SendOrder, "concurrency" | "url" | "deliveries">) => Promise<LoadResult>,
  ) => Promise<T>,
): Promise<T> {
  const scenario = await startScenario({ dialect });
  const sender = fork(fileURLToPath(new URL("./webhook-sender.ts", import.meta.url)), {
    execArgv: ["--import", "tsx"],
  });
  try {
    if (atScale) {
      const big = await recordRepository(
        scenario.store.db,
        { host: "github.com", owner: "acme", name: "big" },
        T0,
      );
      await fillQueues(scenario.store, big, (queue) => queue < runningAtScale);
    }
    const shas = await testingQueues(scenario, queues);
    // The service polls GitHub as it starts, then every POLL_INTERVAL_SECONDS (60 s, longer than a burst). The
    // first poll happens before the deliveries are made: the fake GitHub holds every report of the load from then
    // on, and a poll reading them all would leave the deliveries nothing to change.
    await scenario.server.engine.scheduler.runOnce({ poll: true });
    const deliveries = (everyEventChanges ? changingDeliveries : ciDeliveries)(
      scenario,
      shas,
      warmUpDeliveries + burstDeliveries,
    );
    scenario.fake.takeWebhooks();
    scenario.server.engine.scheduler.start();
    return await work((order) => deliver(sender, { ...order, url: scenario.server.url, deliveries }));
  } finally {
    sender.kill();
    await scenario.close();
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

/**
 * One burst of 3,000 deliveries after 2,000 that warm up; events per second and answer times, and beside them
 * `without`'s, the same load's figures without what these options add (the scale).
 */
export async function benchWebhooks(options: LoadOptions, without?: WebhookFigures): Promise<WebhookFigures> {
  return withLoad(options, async (send) => {
    await send({ count: warmUpDeliveries, runId: "warm" });
    const cpu = process.cpuUsage();
    const burst = { count: burstDeliveries, from: warmUpDeliveries, runId: "bench" };
    const { events, seconds, latencies } = await send(burst);
    const { user, system } = process.cpuUsage(cpu);
    const p = (q: number) => percentile(latencies, q).toFixed(1);
    const figures = {
      eventsPerSecond: Math.round(events / seconds),
      p99Ms: percentile(latencies, 99),
      cpuMicrosPerEvent: Math.round((user + system) / events),
    };
    const beside =
      without === undefined
        ? ""
        : `; without them ${without.eventsPerSecond} events/s, p99 ${without.p99Ms.toFixed(1)} ms, ${without.cpuMicrosPerEvent} µs per event (CPU ×${(figures.cpuMicrosPerEvent / without.cpuMicrosPerEvent).toFixed(2)})`;
    const line = `webhooks end to end (${describe(options)}): ${figures.eventsPerSecond} events/s (${events} in ${seconds.toFixed(2)} s), answer p50 ${p(50)} ms, p99 ${p(99)} ms, service CPU ${figures.cpuMicrosPerEvent} µs per event${beside}`;
    return { ...figures, line };
  });
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

/** The load for `minutes`: RSS after the first minute and at the end (no leak: within 20%). */
export async function soakWebhooks(options: LoadOptions, minutes: number): Promise<string> {
  return withLoad(options, async (send) => {
    const started = performance.now();
    const endsAt = started + minutes * 60_000;
    let rssAfterMinute: number | undefined;
    let total = 0;
    let round = 0;
    while (performance.now() < endsAt) {
      const durationMs = Math.min(10_000, endsAt - performance.now());
      const { events } = await send({ durationMs, runId: `soak${round++}` });
      total += events;
      if (rssAfterMinute === undefined && performance.now() - started >= 60_000) {
        rssAfterMinute = process.memoryUsage().rss;
      }
    }
    const end = process.memoryUsage().rss;
    const seconds = (performance.now() - started) / 1000;
    const growth =
      rssAfterMinute === undefined
        ? "n/a"
        : `${(((end - rssAfterMinute) / rssAfterMinute) * 100).toFixed(1)}%`;
    return `webhook soak (${describe(options)}) for ${minutes} min: ${Math.round(total / seconds)} events/s, RSS after 1 min ${rssAfterMinute === undefined ? "n/a" : mib(rssAfterMinute)}, at the end ${mib(end)} (${growth})`;
  });
}
