// The queue core's state per queue, saved together with the commands it produced (the transactional
// outbox) and the projections that the API and metrics read.
import { type Kysely, sql, type Transaction } from "kysely";
import { nextDeadline, pullRequestsToRecheck, type QueueState } from "../queue/index.ts";
import { pullRequestView, testRunView } from "../presentation/queue-views.ts";
import type {
  QueueNeedingAttention,
  QueueStep,
  QueueStepSegment,
  StoredQueueState,
} from "../ports/queue-storage.ts";
import type { Dialect } from "./connection.ts";
import { enqueueCommands } from "./outbox.ts";
import { advanceCounters, countersAdvancedBy } from "./queue-metrics.ts";
import { queueColumns } from "./queues.ts";
import type { Database } from "./schema.ts";

/**
 * Serialises steps of one queue across replicas: on PostgreSQL a transaction-scoped advisory lock on the
 * queue; SQLite has a single writer, so its write transaction is the lock.
 */
export async function lockQueue(
  trx: Transaction<Database>,
  dialect: Dialect,
  queueId: string,
): Promise<void> {
  if (dialect === "postgres") {
    await sql`select pg_advisory_xact_lock(hashtextextended(${queueId}, 0))`.execute(trx);
  }
}

export async function loadQueueState(
  db: Kysely<Database>,
  queueId: string,
): Promise<StoredQueueState | undefined> {
  const row = await db
    .selectFrom("queue_states")
    .select(["state", "version", "next_command_seq"])
    .where("queue_id", "=", queueId)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  return {
    queueId,
    state: JSON.parse(row.state) as QueueState,
    version: row.version,
    nextCommandSeq: row.next_command_seq,
  };
}

function runsInFlight(state: QueueState, pool: "any" | "bisection" = "any"): number {
  return Object.values(state.runs).filter(
    (run) => run.status === "in_progress" && (pool === "any" || run.purpose !== undefined),
  ).length;
}

export async function queuesNeedingAttention(
  db: Kysely<Database>,
  now: number,
): Promise<QueueNeedingAttention[]> {
  const rows = await db
    .selectFrom("queue_states")
    .select(["queue_id", "next_deadline", "runs_in_flight", "awaiting_mergeability"])
    .where((eb) =>
      eb.or([
        eb("next_deadline", "<=", now),
        eb("runs_in_flight", ">", 0),
        eb("awaiting_mergeability", ">", 0),
      ]),
    )
    .execute();
  return rows.map((row) => ({
    queueId: row.queue_id,
    deadlinePassed: row.next_deadline !== null && row.next_deadline <= now,
    runsInFlight: row.runs_in_flight > 0,
    awaitingMergeability: row.awaiting_mergeability > 0,
  }));
}

export async function insertQueueState(db: Kysely<Database>, state: QueueState, now: number): Promise<void> {
  await db
    .insertInto("queue_states")
    .values({
      queue_id: state.queueId,
      state: JSON.stringify(state),
      version: 1,
      next_command_seq: 1,
      next_deadline: null,
      runs_in_flight: 0,
      bisection_runs_in_flight: 0,
      awaiting_mergeability: 0,
      updated_at: now,
    })
    .execute();
}

/** Saves the new state, its commands and its projections; call inside the queue's transaction. */
export async function saveQueueStep(trx: Transaction<Database>, step: QueueStep): Promise<void> {
  const { stored, next, now } = step;
  const segments = [...(step.through ?? []), step];
  const commandCount = segments.reduce((count, segment) => count + segment.commands.length, 0);
  await trx
    .updateTable("queue_states")
    .set({
      state: JSON.stringify(next),
      version: stored.version + 1,
      next_command_seq: stored.nextCommandSeq + commandCount,
      next_deadline: nextDeadline(next),
      runs_in_flight: runsInFlight(next),
      bisection_runs_in_flight: runsInFlight(next, "bisection"),
      awaiting_mergeability: pullRequestsToRecheck(next).length,
      updated_at: now,
    })
    .where("queue_id", "=", stored.queueId)
    .execute();
  let previous = stored.state;
  let seq = stored.nextCommandSeq;
  for (const segment of segments) {
    await enqueueCommands(trx, stored.queueId, seq, segment.commands, segment.now);
    seq += segment.commands.length;
    if (segment.next !== previous) await project(trx, previous, segment, step.prUrl);
    previous = segment.next;
  }
}

/** The records, transitions, counters and settings the API and metrics read, after one state change. */
async function project(
  trx: Transaction<Database>,
  previous: QueueState,
  { next, now }: QueueStepSegment,
  prUrl: (prNumber: number) => string,
): Promise<void> {
  await projectSubmissions(trx, previous, next);
  await projectTestRuns(trx, previous, next, prUrl);
  await advanceCounters(trx, next.queueId, countersAdvancedBy(previous, next));
  await projectQueueSettings(trx, previous, next, now);
}

/** Submissions whose entry changed: their row, record and new transitions. */
async function projectSubmissions(trx: Transaction<Database>, previous: QueueState, next: QueueState) {
  for (const [key, pr] of Object.entries(next.prs)) {
    const before = previous.prs[Number(key)];
    if (before === pr) continue;
    const view = pullRequestView(next, pr.number);
    const row = {
      state: pr.state,
      state_reason: pr.stateReason,
      state_detail: pr.stateDetail,
      state_changed_at: pr.stateChangedAt,
      pr_title: pr.title,
      pr_sha: pr.headSha,
      pr_base_branch: pr.baseBranch,
      priority_value: pr.priorityValue,
      used_default_priority: pr.usedDefaultPriority ? 1 : 0,
      skip_the_line: view?.skipTheLine ? 1 : 0,
      no_batch: pr.noBatch ? 1 : 0,
      record: JSON.stringify(view),
    } as const;
    await trx
      .insertInto("pull_request_submissions")
      .values({
        ...row,
        id: pr.submissionId,
        queue_id: next.queueId,
        pr_number: pr.number,
        pr_author: pr.author,
        submitted_at: pr.submittedAt,
      })
      .onConflict((oc) => oc.column("id").doUpdateSet(row))
      .execute();
    const known = before?.submissionId === pr.submissionId ? before.history.length : 0;
    const added = pr.history.slice(known);
    if (added.length > 0) {
      await trx
        .insertInto("pull_request_transitions")
        .values(
          added.map((transition, index) => ({
            submission_id: pr.submissionId,
            seq: known + index,
            queue_id: next.queueId,
            pr_number: pr.number,
            state: transition.state,
            reason: transition.reason,
            at: transition.at,
          })),
        )
        .onConflict((oc) => oc.columns(["submission_id", "seq"]).doNothing())
        .execute();
    }
  }
}

async function projectTestRuns(
  trx: Transaction<Database>,
  previous: QueueState,
  next: QueueState,
  prUrl: (prNumber: number) => string,
) {
  for (const run of Object.values(next.runs)) {
    if (previous.runs[run.id] === run) continue;
    const row = {
      status: run.status,
      test_branch: run.testBranch,
      test_branch_sha: run.testBranchSha,
      ended_at: run.endedAt,
      end_reason: run.endReason,
      purpose: run.purpose ?? "main",
      record: JSON.stringify(testRunView(next, run.id, prUrl)),
    };
    await trx
      .insertInto("test_runs")
      .values({ ...row, id: run.id, queue_id: next.queueId, started_at: run.startedAt })
      .onConflict((oc) => oc.column("id").doUpdateSet(row))
      .execute();
  }
}

/** The queues table mirrors the settings and state the core holds, for listings and metrics. */
async function projectQueueSettings(
  trx: Transaction<Database>,
  previous: QueueState,
  next: QueueState,
  now: number,
) {
  const state = next.pendingMode === null ? next.status : "switching_modes";
  const previousState = previous.pendingMode === null ? previous.status : "switching_modes";
  if (previous.settings === next.settings && state === previousState) return;
  await trx
    .updateTable("queues")
    .set({ ...queueColumns(next.settings, state), updated_at: now })
    .where("id", "=", next.queueId)
    .execute();
}
