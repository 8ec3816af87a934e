// Reads behind the Prometheus metrics (docs/monitoring.md#merge-queue-metrics), and the counters the queue steps advance. Every read is a
// grouped count or sum over an index, bounded by what is queued now or happened in the last hour, or a handful
// of counter rows: never the queues' whole history, whose rows are not loaded either. Every replica reading the
// same database answers the same.
import { type Expression, type Kysely, sql, type Transaction } from "kysely";
import { isTerminal, type QueueState } from "../queue/index.ts";
import type { Database } from "./schema.ts";
import type { CountRow } from "../ports/queue-records.ts";
export type { CountRow } from "../ports/queue-records.ts";

/** The queues a scrape covers: an organization's, or one repository's of it. */
export interface MetricsScope {
  organizationId: string;
  repositoryId?: string | undefined;
}

export interface MetricsQueue {
  queueId: string;
  owner: string;
  name: string;
  branch: string;
  /** running, paused, draining or switching_modes, as the queue core last saved it. */
  state: string;
  runsInFlight: number;
  /** Of `runsInFlight`, those of the bisection pool. */
  bisectionRunsInFlight: number;
  /** Independent lanes among the PRs under test or waiting to merge (docs/monitoring.md#merge-queue-metrics). */
  lanesInFlight: number;
}

/** Queues in scope, ordered by repository and branch so the exposition is stable. */
export async function queuesInScope(db: Kysely<Database>, scope: MetricsScope): Promise<MetricsQueue[]> {
  let query = db
    .selectFrom("queues")
    .innerJoin("repositories", "repositories.id", "queues.repository_id")
    .innerJoin("organization_owners", (join) =>
      join
        .onRef("organization_owners.host", "=", "repositories.host")
        .onRef("organization_owners.owner_key", "=", "repositories.owner_key"),
    )
    .innerJoin("queue_states", "queue_states.queue_id", "queues.id")
    .select([
      "queues.id as queueId",
      "repositories.owner",
      "repositories.name",
      "queues.branch",
      "queues.state",
      "queue_states.runs_in_flight as runsInFlight",
      "queue_states.bisection_runs_in_flight as bisectionRunsInFlight",
      "queue_states.lanes_in_flight as lanesInFlight",
    ])
    .where("organization_owners.organization_id", "=", scope.organizationId)
    .orderBy("repositories.owner_key")
    .orderBy("repositories.name_key")
    .orderBy("queues.branch_key");
  if (scope.repositoryId !== undefined) query = query.where("repositories.id", "=", scope.repositoryId);
  return query.execute();
}

/** Submissions per queue in one of `states` (index submissions_by_queue_state): the PRs queued now. */
export async function submissionsInStates(
  db: Kysely<Database>,
  queueIds: readonly string[],
  states: readonly string[],
): Promise<CountRow[]> {
  if (queueIds.length === 0) return [];
  return db
    .selectFrom("pull_request_submissions")
    .select(["queue_id as queueId", "state as key", (eb) => eb.fn.countAll<number>().as("count")])
    .where("queue_id", "in", queueIds)
    .where("state", "in", states)
    .groupBy(["queue_id", "state"])
    .execute();
}

/**
 * The cumulative counters a scrape exposes: concluded PRs, and ended runs per final state, of the main line
 * (`test_runs`) and of the bisection pool (`bisection_test_runs`: bisection and confirmation runs).
 */
export type CounterMetric = "pr_conclusions" | "test_runs" | "bisection_test_runs";

/** The pools of test runs (`queue_type`, docs/monitoring.md#merge-queue-metrics). */
export type RunPool = "main" | "bisection";

export interface CounterIncrement {
  metric: CounterMetric;
  label: string;
}

export interface CounterRow {
  queueId: string;
  metric: CounterMetric;
  label: string;
  value: number;
}

export async function counters(db: Kysely<Database>, queueIds: readonly string[]): Promise<CounterRow[]> {
  if (queueIds.length === 0) return [];
  const rows = await db
    .selectFrom("queue_metric_counters")
    .select(["queue_id as queueId", "metric", "label", "value"])
    .where("queue_id", "in", queueIds)
    .execute();
  return rows as CounterRow[];
}

/**
 * What a step did to the counters: one per PR it concluded, one per run it ended. Read from the state diff the
 * step saves, so each is counted exactly once, in the step's own transaction.
 */
export function countersAdvancedBy(previous: QueueState, next: QueueState): CounterIncrement[] {
  const increments: CounterIncrement[] = [];
  for (const pr of Object.values(next.prs)) {
    const before = previous.prs[pr.number];
    if (before === pr) continue;
    const known = before?.submissionId === pr.submissionId ? before.history.length : 0;
    for (const { state } of pr.history.slice(known)) {
      if (isTerminal(state)) increments.push({ metric: "pr_conclusions", label: state });
    }
  }
  for (const run of Object.values(next.runs)) {
    const before = previous.runs[run.id];
    if (run.status !== "in_progress" && (before === undefined || before.status === "in_progress")) {
      const metric = run.purpose === undefined ? "test_runs" : "bisection_test_runs";
      increments.push({ metric, label: run.status });
    }
  }
  return increments;
}

/** Adds one per increment to the queue's counters; call in the transaction that saves the step. */
export async function advanceCounters(
  trx: Transaction<Database>,
  queueId: string,
  increments: readonly CounterIncrement[],
): Promise<void> {
  // One row per counter: PostgreSQL refuses an upsert that touches the same row twice.
  const sums = new Map<string, { metric: CounterMetric; label: string; value: number }>();
  for (const { metric, label } of increments) {
    const key = `${metric}\u0000${label}`;
    const sum = sums.get(key) ?? { metric, label, value: 0 };
    sum.value += 1;
    sums.set(key, sum);
  }
  if (sums.size === 0) return;
  await trx
    .insertInto("queue_metric_counters")
    .values([...sums.values()].map((sum) => ({ queue_id: queueId, ...sum })))
    .onConflict((oc) =>
      oc.columns(["queue_id", "metric", "label"]).doUpdateSet((eb) => ({
        value: eb("queue_metric_counters.value", "+", eb.ref("excluded.value")),
      })),
    )
    .execute();
}

/** Transitions into `states` after `since`, per queue and state. */
export async function transitionsByState(
  db: Kysely<Database>,
  queueIds: readonly string[],
  states: readonly string[],
  since: number,
): Promise<CountRow[]> {
  if (queueIds.length === 0) return [];
  return db
    .selectFrom("pull_request_transitions")
    .select(["queue_id as queueId", "state as key", (eb) => eb.fn.countAll<number>().as("count")])
    .where("queue_id", "in", queueIds)
    .where("state", "in", states)
    .where("at", ">", since)
    .groupBy(["queue_id", "state"])
    .execute();
}

/** Transitions into `states` for one of `reasons` after `since`, per queue. */
export async function transitionsForReasons(
  db: Kysely<Database>,
  queueIds: readonly string[],
  states: readonly string[],
  reasons: readonly string[],
  since: number,
): Promise<{ queueId: string; count: number }[]> {
  if (queueIds.length === 0) return [];
  return db
    .selectFrom("pull_request_transitions")
    .select(["queue_id as queueId", (eb) => eb.fn.countAll<number>().as("count")])
    .where("queue_id", "in", queueIds)
    .where("state", "in", states)
    .where("reason", "in", reasons)
    .where("at", ">", since)
    .groupBy("queue_id")
    .execute();
}

/** A distribution of durations: how many, their sum, and how many were at most each bound. */
export interface DurationBuckets {
  queueId: string;
  count: number;
  sumMs: number;
  /** Cumulative counts, one per bound of the request, in the same order. */
  atMost: number[];
}

type BucketRow = { queueId: string; count: number; sumMs: number } & Record<`le${number}`, number>;

/** count, sum and one `sum(case …)` per bound over `duration`: the whole histogram in one grouped row. */
function bucketColumns(duration: Expression<number>, boundsMs: readonly number[]) {
  return [
    sql<number>`count(*)`.as("count"),
    // PostgreSQL sums bigints into numeric, which pg returns as a string; bigint keeps it a number.
    sql<number>`cast(coalesce(sum(${duration}), 0) as bigint)`.as("sumMs"),
    ...boundsMs.map((bound, index) =>
      sql<number>`sum(case when ${duration} <= ${bound} then 1 else 0 end)`.as(`le${index}`),
    ),
  ];
}

function toBuckets(rows: readonly BucketRow[], boundsMs: readonly number[]): DurationBuckets[] {
  return rows.map((row) => ({
    queueId: row.queueId,
    count: row.count,
    sumMs: row.sumMs,
    atMost: boundsMs.map((_, index) => row[`le${index}`] ?? 0),
  }));
}

/** Submission to a transition of the PR, per queue, over the transitions after `since` (narrowed by the caller). */
function submissionToTransition(
  db: Kysely<Database>,
  queueIds: readonly string[],
  since: number,
  boundsMs: readonly number[],
) {
  const duration = sql<number>`t.at - s.submitted_at`;
  return db
    .selectFrom("pull_request_transitions as t")
    .innerJoin("pull_request_submissions as s", "s.id", "t.submission_id")
    .select(["t.queue_id as queueId", ...bucketColumns(duration, boundsMs)])
    .where("t.queue_id", "in", queueIds)
    .where("t.at", ">", since)
    .groupBy("t.queue_id");
}

/** Submission to first test, for PRs whose first test started after `since`. */
export async function waitDurations(
  db: Kysely<Database>,
  queueIds: readonly string[],
  since: number,
  boundsMs: readonly number[],
): Promise<DurationBuckets[]> {
  if (queueIds.length === 0) return [];
  const rows = await submissionToTransition(db, queueIds, since, boundsMs)
    .where("t.state", "=", "testing")
    // The first test only: a restarted PR tests again, but it waited once (primary key prefix lookup).
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("pull_request_transitions as earlier")
            .select(sql`1`.as("one"))
            .whereRef("earlier.submission_id", "=", "t.submission_id")
            .whereRef("earlier.seq", "<", "t.seq")
            .where("earlier.state", "=", "testing"),
        ),
      ),
    )
    .execute();
  return toBuckets(rows as unknown as BucketRow[], boundsMs);
}

/** Submission to conclusion, for PRs that reached one of `states` after `since`. */
export async function timesInQueue(
  db: Kysely<Database>,
  queueIds: readonly string[],
  states: readonly string[],
  since: number,
  boundsMs: readonly number[],
): Promise<DurationBuckets[]> {
  if (queueIds.length === 0) return [];
  const rows = await submissionToTransition(db, queueIds, since, boundsMs)
    .where("t.state", "in", states)
    .execute();
  return toBuckets(rows as unknown as BucketRow[], boundsMs);
}

/**
 * Start to end of the runs of `pool` that ended with one of `statuses` after `since` (index
 * test_runs_by_queue).
 */
export async function testRunDurations(
  db: Kysely<Database>,
  queueIds: readonly string[],
  pool: RunPool,
  statuses: readonly string[],
  since: number,
  boundsMs: readonly number[],
): Promise<DurationBuckets[]> {
  if (queueIds.length === 0) return [];
  const duration = sql<number>`ended_at - started_at`;
  const rows = await db
    .selectFrom("test_runs")
    .select(["queue_id as queueId", ...bucketColumns(duration, boundsMs)])
    .where("queue_id", "in", queueIds)
    .where("ended_at", ">", since)
    .where("status", "in", statuses)
    .where("purpose", pool === "main" ? "=" : "<>", "main")
    .groupBy("queue_id")
    .execute();
  return toBuckets(rows as unknown as BucketRow[], boundsMs);
}
