// npm run bench:queue — the queue core's step time with 1,000 PRs queued, webhook events processed per
// second end to end (signed HTTP delivery → translation → step → SQLite transaction) on this machine, and
// the queue policies compared by the simulator on the stress day and the typical day, 10 pooled seeds each.
import { performance } from "node:perf_hooks";
import { step, type QueueEvent, type QueueState } from "../../src/queue/index.ts";
import { generateDay } from "../../src/simulator/model.ts";
import { parsePolicies } from "../../src/simulator/policy-spec.ts";
import { playQueue } from "../../src/simulator/queue-policy.ts";
import { formatComparison } from "../../src/simulator/report.ts";
import { compare } from "../../src/simulator/simulate.ts";
import { aPr, aQueue, T0 } from "../support/queue-factories.ts";
import { repoRef as repo, startScenario } from "../support/queue-scenario.ts";
import { deliverWebhook } from "../support/webhooks.ts";
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

async function benchWebhooks(): Promise<string> {
  const scenario = await startScenario();
  try {
    await scenario.api("createQueue", {
      repo,
      targetBranch: "main",
      requiredStatuses: ["ci"],
      concurrency: 4,
    });
    for (let n = 1; n <= 4; n++) {
      scenario.repo.openPullRequest({
        number: n,
        title: `Change ${n}`,
        author: "alice",
        files: { [`src/${n}.ts`]: "x" },
      });
      await scenario.api("submitPullRequest", { repo, targetBranch: "main", pr: { number: n } });
    }
    await scenario.settle();
    const run = (await scenario.api("getQueue", { repo, targetBranch: "main" })).body;
    if (run.enqueuedPullRequests.length !== 4) throw new Error("the PRs did not queue");
    const pr = (
      await scenario.api("getSubmittedPullRequest", { repo, targetBranch: "main", pr: { number: 1 } })
    ).body;
    const details = (
      await scenario.api("getMergeQueueTestingDetails", {
        repo,
        targetBranch: "main",
        testRunId: pr.testRunId,
      })
    ).body;
    // CI keeps reporting progress on the run's commit: every delivery is a status webhook the queue steps on.
    const deliveries = Array.from({ length: 3000 }, (_, i) => {
      const delivery = scenario.repo.reportStatus(details.testBranchSha, `job-${i % 50}`, "pending");
      return { name: delivery.name, payload: delivery.payload, id: `bench-${i}` };
    });
    scenario.fake.takeWebhooks();
    const started = performance.now();
    let next = 0;
    const worker = async () => {
      while (next < deliveries.length) {
        const delivery = deliveries[next++]!;
        const response = await deliverWebhook(
          scenario.server.url,
          delivery.name,
          delivery.payload,
          delivery.id,
        );
        if (response.status !== 200) throw new Error(`delivery answered ${response.status}`);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    const seconds = (performance.now() - started) / 1000;
    return `webhooks end to end (status events on a testing run, SQLite, 8 concurrent deliveries): ${Math.round(deliveries.length / seconds)} events/s (${deliveries.length} in ${seconds.toFixed(2)} s)`;
  } finally {
    await scenario.close();
  }
}

const DAYS = [
  ["Stress day", stressDay],
  ["Typical day", typicalDay],
] as const;

/**
 * Concurrency and optimistic merging, then confirmation of failures, batching with bisection (with and without
 * skipping redundant tests), and adaptive batching.
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

console.log("Switchyard queue benchmark (this machine)");
for (const line of benchStep()) console.log(line);
console.log(await benchWebhooks());
for (const line of benchPolicies()) console.log(line);
