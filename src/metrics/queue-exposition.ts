// The merge queue metrics (docs/monitoring.md#merge-queue-metrics), computed from the database at each scrape, so every replica answers
// the same. Names and labels are those of the hosted merge-queue service whose API Switchyard keeps.
import type { Kysely } from "kysely";
import type { RequeueReason } from "../queue/index.ts";
import type { Database } from "../store/schema.ts";
import {
  type CounterMetric,
  type CounterRow,
  type CountRow,
  counters,
  type DurationBuckets,
  type MetricsQueue,
  type MetricsScope,
  queuesInScope,
  type RunPool,
  submissionsInStates,
  testRunDurations,
  timesInQueue,
  transitionsByState,
  transitionsForReasons,
  waitDurations,
} from "../store/queue-metrics.ts";
import {
  type HistogramSeries,
  type Labels,
  type MetricFamily,
  type Sample,
  writeExposition,
} from "./exposition.ts";

const windowMs = 60 * 60 * 1000;
/** docs/monitoring.md#merge-queue-metrics: the buckets of the three duration histograms, in seconds. */
const durationBucketsSeconds = [60, 300, 600, 900, 1800, 3600, 5400, 7200] as const;
const boundsMs = durationBucketsSeconds.map((seconds) => seconds * 1000);

const queueStates = ["running", "paused", "draining", "switching_modes"] as const;
/** docs/queue.md#pr-states: PRs "ready or further" make the depth; not_ready ones await mergeability. */
const readyStates = ["pending", "testing", "tests_passed", "pending_failure"] as const;
const conclusions = ["merged", "failed", "cancelled"] as const;
/** Runs that ended (the test_runs counter); a run in flight is counted by mq_testing_slots_active instead. */
const endedRunStatuses = ["succeeded", "failed", "cancelled"] as const;
/** A test duration is what CI took to decide: abandoned (cancelled) runs never finished testing. */
const decidedRunStatuses = ["succeeded", "failed"] as const;

/**
 * A restart is a started PR sent back to wait for a new run (testing → pending: docs/queue.md#pr-states, #failures):
 * every requeue reason of the core. The record makes the compiler name each new reason here.
 */
const restartReasons = Object.keys({
  restart_requested: true,
  target_moved: true,
  urgent_pr_ahead: true,
  pr_ahead_failed: true,
  pr_ahead_cancelled: true,
  pr_ahead_requeued: true,
  passing_run_withdrawn: true,
  cleared_by_retest: true,
  flaky_failure: true,
} satisfies Record<RequeueReason, true>);

/**
 * `queue_type` (docs/monitoring.md#merge-queue-metrics): PRs belong to the queue's main line; test runs to the main line or to the bisection
 * pool (bisection and confirmation runs: docs/queue.md#bisection), so the run families have a series for each pool.
 */
const runPools: readonly RunPool[] = ["main", "bisection"];
/** The counter of each pool's ended runs. */
const runCounters = { main: "test_runs", bisection: "bisection_test_runs" } as const satisfies Record<
  RunPool,
  CounterMetric
>;

function queueLabels(queue: MetricsQueue, queueType: RunPool = "main"): Labels {
  return { repo: `${queue.owner}/${queue.name}`, branch: queue.branch, queue_type: queueType };
}

/** Counts keyed by queue id, then by the row's key. */
function countsByQueue(rows: readonly CountRow[]): Map<string, Map<string, number>> {
  const byQueue = new Map<string, Map<string, number>>();
  for (const row of rows) {
    const counts = byQueue.get(row.queueId) ?? new Map<string, number>();
    counts.set(row.key, (counts.get(row.key) ?? 0) + row.count);
    byQueue.set(row.queueId, counts);
  }
  return byQueue;
}

/** One cumulative counter's values, keyed by queue id, then by label. */
function counterValues(rows: readonly CounterRow[], metric: CounterMetric): Map<string, Map<string, number>> {
  return countsByQueue(
    rows
      .filter((row) => row.metric === metric)
      .map((row) => ({ queueId: row.queueId, key: row.label, count: row.value })),
  );
}

function sumOf(counts: Map<string, number> | undefined, keys: readonly string[]): number {
  return keys.reduce((total, key) => total + (counts?.get(key) ?? 0), 0);
}

function histogramSeries(
  queues: readonly MetricsQueue[],
  rows: readonly DurationBuckets[],
  queueType: RunPool = "main",
): HistogramSeries[] {
  const byQueue = new Map(rows.map((row) => [row.queueId, row]));
  return queues.map((queue) => {
    const row = byQueue.get(queue.queueId);
    return {
      labels: queueLabels(queue, queueType),
      atMost: row?.atMost ?? boundsMs.map(() => 0),
      count: row?.count ?? 0,
      sum: (row?.sumMs ?? 0) / 1000,
    };
  });
}

/** The exposition text for the queues in scope, as of `now`. */
export async function queueMetricsExposition(
  db: Kysely<Database>,
  scope: MetricsScope,
  now: number,
): Promise<string> {
  const queues = await queuesInScope(db, scope);
  const ids = queues.map((queue) => queue.queueId);
  const since = now - windowMs;
  const [
    queued,
    counted,
    concludedInWindow,
    restartsInWindow,
    waits,
    tests,
    timesToConclusion,
    refusedInWindow,
  ] = await Promise.all([
    submissionsInStates(db, ids, [...readyStates, "not_ready"]),
    counters(db, ids),
    transitionsByState(db, ids, conclusions, since),
    transitionsForReasons(db, ids, ["pending", "not_ready"], restartReasons, since),
    waitDurations(db, ids, since, boundsMs),
    Promise.all(runPools.map((pool) => testRunDurations(db, ids, pool, decidedRunStatuses, since, boundsMs))),
    timesInQueue(db, ids, conclusions, since, boundsMs),
    transitionsForReasons(db, ids, ["failed"], ["branch_rule_refused"], since),
  ]);
  const states = countsByQueue(queued);
  const conclusionsTotal = counterValues(counted, "pr_conclusions");
  const concluded = countsByQueue(concludedInWindow);
  const restarts = new Map(restartsInWindow.map((row) => [row.queueId, row.count]));
  const ruleRefusals = new Map(refusedInWindow.map((row) => [row.queueId, row.count]));

  const perQueue = (value: (queue: MetricsQueue) => number): Sample[] =>
    queues.map((queue) => ({ labels: queueLabels(queue), value: value(queue) }));
  const perQueueAndLabel = (
    label: string,
    values: readonly string[],
    value: (queue: MetricsQueue, labelValue: string) => number,
  ): Sample[] =>
    queues.flatMap((queue) =>
      values.map((labelValue) => ({
        labels: { ...queueLabels(queue), [label]: labelValue },
        value: value(queue, labelValue),
      })),
    );

  const families: MetricFamily[] = [
    {
      name: "mq_depth_current",
      help: "PRs in the queue that are ready or further (pending, testing, tests_passed, pending_failure).",
      type: "gauge",
      samples: perQueue((queue) => sumOf(states.get(queue.queueId), readyStates)),
    },
    {
      name: "mq_awaiting_mergeability",
      help: "PRs in the queue that are not ready yet (not_ready): base, mergeability or impacted targets.",
      type: "gauge",
      samples: perQueue((queue) => sumOf(states.get(queue.queueId), ["not_ready"])),
    },
    {
      name: "mq_testing_slots_active",
      help: "Test runs in flight, per pool: the main line, or bisection (bisection and confirmation runs).",
      type: "gauge",
      samples: queues.flatMap((queue) =>
        runPools.map((pool) => ({
          labels: queueLabels(queue, pool),
          value:
            pool === "bisection"
              ? queue.bisectionRunsInFlight
              : queue.runsInFlight - queue.bisectionRunsInFlight,
        })),
      ),
    },
    {
      name: "mq_lanes_in_flight",
      help: "Independent lanes among the PRs testing or waiting to merge: groups that share no impacted target (1 in single mode while anything is tested).",
      type: "gauge",
      samples: perQueue((queue) => queue.lanesInFlight),
    },
    {
      name: "mq_queue_state",
      help: "1 for the queue's current state, 0 for the others.",
      type: "gauge",
      samples: perQueueAndLabel("state", queueStates, (queue, state) => (queue.state === state ? 1 : 0)),
    },
    {
      name: "mq_pr_conclusions_1h_total",
      help: "PRs that left the queue in the last hour, by conclusion (a rolling window: it falls as the hour moves on).",
      type: "untyped",
      samples: perQueueAndLabel("conclusion", conclusions, (queue, conclusion) =>
        sumOf(concluded.get(queue.queueId), [conclusion]),
      ),
    },
    {
      name: "mq_pr_restarts_1h_total",
      help: "Times a PR went back to wait for a new test run in the last hour (restart, target moved, PR ahead failed or left, urgent PR ahead).",
      type: "untyped",
      samples: perQueue((queue) => restarts.get(queue.queueId) ?? 0),
    },
    {
      name: "mq_branch_rule_refusals_1h_total",
      help: "PRs failed in the last hour because GitHub refused their merge for one of the target branch's rules (a rolling window).",
      type: "untyped",
      samples: perQueue((queue) => ruleRefusals.get(queue.queueId) ?? 0),
    },
    {
      name: "mq_pr_wait_duration_1h_seconds",
      help: "Time from submission to first test, for PRs whose first test started in the last hour.",
      type: "histogram",
      bounds: durationBucketsSeconds,
      series: histogramSeries(queues, waits),
    },
    {
      name: "mq_pr_test_duration_1h_seconds",
      help: "Duration of the test runs that passed or failed in the last hour, per pool.",
      type: "histogram",
      bounds: durationBucketsSeconds,
      series: runPools.flatMap((pool, index) => histogramSeries(queues, tests[index] ?? [], pool)),
    },
    {
      name: "mq_pr_time_in_queue_1h_seconds",
      help: "Time from submission to conclusion (merged, failed or cancelled), for PRs concluded in the last hour.",
      type: "histogram",
      bounds: durationBucketsSeconds,
      series: histogramSeries(queues, timesToConclusion),
    },
    {
      name: "mq_pr_conclusions_total",
      help: "PRs that left the queue since it was created, by conclusion.",
      type: "counter",
      samples: perQueueAndLabel("conclusion", conclusions, (queue, conclusion) =>
        sumOf(conclusionsTotal.get(queue.queueId), [conclusion]),
      ),
    },
    {
      name: "mq_test_runs_total",
      help: "Test runs that ended since the queue was created, per pool and final status.",
      type: "counter",
      samples: runPools.flatMap((pool) => {
        const runsTotal = counterValues(counted, runCounters[pool]);
        return queues.flatMap((queue) =>
          endedRunStatuses.map((status) => ({
            labels: { ...queueLabels(queue, pool), status },
            value: sumOf(runsTotal.get(queue.queueId), [status]),
          })),
        );
      }),
    },
  ];
  return writeExposition(families);
}
