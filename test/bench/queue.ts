// npm run bench:queue — the queue core's step time with 1,000 PRs queued, webhook events processed per
// second end to end by the built service in its own process (signed HTTP delivery → translation → step →
// transaction → answer; webhook-load.ts) beside a bare endpoint doing the least with the same deliveries, on
// SQLite and, when TEST_DATABASE_URL is set, on PostgreSQL (on 10 queues also among 1,000 others), and the queue
// policies compared by the simulator on the stress day and the typical day, 10 pooled seeds each.
//   -- --service      the step and webhook figures only, without the simulator's tables
//   -- --webhooks     the webhook figures only
//   -- --soak [min]   only the webhook load for that many minutes (default 2), with RSS after 1 min and at the end
// BENCH_ROUNDS sets the bursts of 3,000 deliveries each server gets in turn (default 3); BENCH_SKIP_BUILD=1 uses the
// existing build.
import { performance } from "node:perf_hooks";
import { step, type QueueEvent, type QueueState } from "../../src/queue/index.ts";
import { generateDay } from "../../src/simulator/model.ts";
import { parsePolicies } from "../../src/simulator/policy-spec.ts";
import { playQueue } from "../../src/simulator/queue-policy.ts";
import { formatComparison } from "../../src/simulator/report.ts";
import { compare } from "../../src/simulator/simulate.ts";
import { aPr, aQueue, T0 } from "../support/queue-factories.ts";
import { benchSchedulerScale } from "./scheduler-scale.ts";
import { benchStateSize } from "./state-size.ts";
import { buildService } from "./service-process.ts";
import { benchWebhooks, soakWebhooks } from "./webhook-load.ts";
import { stressDay, typicalDay } from "../simulator/days.ts";

const queuedPrs = 1000;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function benchStep(): string[] {
  let state: QueueState = aQueue({ concurrency: 10 });
  for (let n = 1; n <= queuedPrs; n++) state = step(state, aPr(n), T0 + n).state;
  const inFlight = Object.values(state.runs).filter((run) => run.status === "in_progress");
  // Every run's branch exists, so CI results can land on them.
  for (const run of inFlight)
    state = step(state, { type: "test_branch_created", runId: run.id, sha: `sha-${run.id}` }, T0).state;

  const samples: Record<string, number[]> = { pr_submitted: [], status_reported: [], tick: [] };
  const events = (i: number): [keyof typeof samples, QueueEvent][] => [
    ["pr_submitted", aPr(queuedPrs + 1 + i)],
    [
      "status_reported",
      {
        type: "status_reported",
        sha: `sha-${inFlight[i % inFlight.length]!.id}`,
        report: { kind: "status", name: "ci", id: i + 1, state: "pending", url: "" },
      },
    ],
    ["tick", { type: "tick" }],
  ];
  for (let i = 0; i < 2000; i++) {
    for (const [name, event] of events(i)) {
      const started = performance.now();
      step(state, event, T0 + 10_000 + i);
      samples[name]!.push(performance.now() - started);
    }
  }
  return Object.entries(samples).map(([name, times]) => {
    const sorted = times.slice(500).sort((a, b) => a - b); // the first 500 warm the JIT up
    const mean = sorted.reduce((sum, t) => sum + t, 0) / sorted.length;
    return `step(${name}) with ${queuedPrs} PRs queued: mean ${(mean * 1000).toFixed(0)} µs, p50 ${(percentile(sorted, 50) * 1000).toFixed(0)} µs, p95 ${(percentile(sorted, 95) * 1000).toFixed(0)} µs`;
  });
}

const DAYS = [
  ["Stress day", stressDay],
  ["Typical day", typicalDay],
] as const;

/**
 * Concurrency and optimistic merging, then confirmation of failures, batching with bisection (with and without
 * skipping redundant tests), adaptive batching, the probable-futures design, and the proof planner.
 */
const POLICIES = parsePolicies(
  [
    "k=8",
    "k=8,optimistic,d=1",
    "k=8,optimistic,d=1,confirm",
    "k=8,batch=4,wait=1",
    "k=8,batch=4,wait=1,skip-redundant-tests",
    "k=8,batch=4,wait=1,skip-redundant-tests,confirm",
    "k=8,batch=2,wait=1,skip-redundant-tests,confirm,optimistic,d=1",
    "k=8,batch=4,wait=1,skip-redundant-tests,confirm,optimistic,d=1",
    "k=8,batch=8,wait=1,skip-redundant-tests,confirm,optimistic,d=1,adaptive",
    // The design measured against the proof planner (docs/queue-policy.md#probable-futures-measured).
    "k=8,futures",
    "k=8,futures=rerank",
    // The proof planner (docs/queue-policy.md): groups of 4, and auto.
    "k=8,proof,batch=4",
    "k=8,auto",
  ].join(";"),
);

/** One stress day through the core, wall and CPU time: the simulator's promise is a day in under 5 s. */
function benchOneDay(): string {
  const policy = parsePolicies("k=8,optimistic,d=2")[0]!;
  const day = generateDay(stressDay, 1);
  const started = performance.now();
  const cpu = process.cpuUsage();
  playQueue(day, policy.settings);
  const wall = (performance.now() - started) / 1000;
  const { user, system } = process.cpuUsage(cpu);
  return `one stress day (24 h at 30 PRs/h) through the core at ${policy.label}: ${wall.toFixed(2)} s (CPU ${((user + system) / 1e6).toFixed(2)} s)`;
}

function benchPolicies(): string[] {
  return [
    benchOneDay(),
    ...DAYS.map(([name, model]) => {
      const comparison = compare({ model, policies: POLICIES, seed: 1, days: 10 });
      return `\n${name}: ${formatComparison(comparison)}`;
    }),
  ];
}

const args = process.argv.slice(2);
const dialects = process.env.TEST_DATABASE_URL ? (["sqlite", "postgres"] as const) : (["sqlite"] as const);

buildService();
console.log("Switchyard queue benchmark (this machine)");
const webhooksOnly = args.includes("--webhooks");
const soak = args.indexOf("--soak");
if (soak >= 0) {
  const minutes = Number(args[soak + 1] ?? 2);
  console.log(
    await soakWebhooks({ dialect: dialects.at(-1)!, queues: 10 }, Number.isFinite(minutes) ? minutes : 2),
  );
} else {
  if (!webhooksOnly) for (const line of benchStep()) console.log(line);
  for (const dialect of dialects) {
    console.log((await benchWebhooks({ dialect, queues: 1 })).line);
    const tenQueues = await benchWebhooks({ dialect, queues: 10 });
    console.log(tenQueues.line);
    console.log((await benchWebhooks({ dialect, queues: 10, atScale: true }, tenQueues)).line);
    for (const queues of [1, 10]) {
      console.log((await benchWebhooks({ dialect, queues, everyEventChanges: true })).line);
    }
  }
  if (!webhooksOnly) console.log(await benchSchedulerScale());
  if (!webhooksOnly) console.log(benchStateSize());
  if (!webhooksOnly && !args.includes("--service")) for (const line of benchPolicies()) console.log(line);
}
