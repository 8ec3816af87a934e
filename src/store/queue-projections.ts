// The projections of a queue's state that the API, the pages and the metrics read: a record per submission and
// per test run, the PRs' transitions, the counters, and the queue's settings and state on its row.
import type { Insertable, Transaction } from "kysely";
import type { QueueState } from "../queue/index.ts";
import { pullRequestView, testRunView } from "../presentation/queue-views.ts";
import type { QueueStepSegment } from "../ports/queue-persistence.ts";
import type { PullRequestTransitionsTable, TestRunsTable } from "./engine-schema.ts";
import { preparedRecordQuery } from "./prepared-query.ts";
import { advanceCounters, type CounterIncrement, countersAdvancedBy } from "./queue-metrics.ts";
import { queueColumns } from "./queues.ts";
import type { Database, PullRequestSubmissionsTable } from "./schema.ts";

/**
 * The records, transitions, counters and settings the API and metrics read, gathered over the state changes of
 * one transaction: a record is written once, as the last change that touched it left it, which is what saving
 * each change on its own leaves too.
 */
export class Projections {
  /** Per submission, the state in which its entry last changed. */
  readonly #submissions = new Map<string, { state: QueueState; prNumber: number }>();
  /** Per run, the state in which it last changed. */
  readonly #runs = new Map<string, QueueState>();
  readonly #transitions: Insertable<PullRequestTransitionsTable>[] = [];
  readonly #increments: CounterIncrement[] = [];
  #settings: { state: QueueState; now: number } | undefined;

  add(previous: QueueState, { next, now }: QueueStepSegment): void {
    if (next === previous) return;
    for (const [key, pr] of Object.entries(next.prs)) {
      const before = previous.prs[Number(key)];
      if (before === pr) continue;
      this.#submissions.set(pr.submissionId, { state: next, prNumber: pr.number });
      const known = before?.submissionId === pr.submissionId ? before.history.length : 0;
      for (const [index, transition] of pr.history.slice(known).entries()) {
        this.#transitions.push({
          submission_id: pr.submissionId,
          seq: known + index,
          queue_id: next.queueId,
          pr_number: pr.number,
          state: transition.state,
          reason: transition.reason,
          at: transition.at,
        });
      }
    }
    for (const run of Object.values(next.runs)) {
      if (previous.runs[run.id] !== run) this.#runs.set(run.id, next);
    }
    this.#increments.push(...countersAdvancedBy(previous, next));
    if (previous.settings !== next.settings || queueStatus(previous) !== queueStatus(next)) {
      this.#settings = { state: next, now };
    }
  }

  async save(trx: Transaction<Database>, queueId: string, prUrl: (prNumber: number) => string) {
    for (const { state, prNumber } of this.#submissions.values()) await saveSubmission(trx, state, prNumber);
    if (this.#transitions.length > 0) {
      await trx
        .insertInto("pull_request_transitions")
        .values(this.#transitions)
        .onConflict((oc) => oc.columns(["submission_id", "seq"]).doNothing())
        .execute();
    }
    for (const [runId, state] of this.#runs) await saveTestRun(trx, state, runId, prUrl);
    await advanceCounters(trx, queueId, this.#increments);
    // The queues table mirrors the settings and state the core holds, for listings and metrics.
    if (this.#settings !== undefined) {
      const { state, now } = this.#settings;
      await trx
        .updateTable("queues")
        .set({ ...queueColumns(state.settings, queueStatus(state)), updated_at: now })
        .where("id", "=", queueId)
        .execute();
    }
  }
}

/** The queue's state as the queues table shows it. */
function queueStatus(state: QueueState) {
  return state.pendingMode === null ? state.status : "switching_modes";
}

/** A submission's record, inserted or brought up to date (its columns and the record the API reads). */
const upsertSubmission = preparedRecordQuery(
  (
    db,
    {
      id,
      queue_id,
      pr_number,
      pr_author,
      submitted_at,
      ...row
    }: Required<Insertable<PullRequestSubmissionsTable>>,
  ) =>
    db
      .insertInto("pull_request_submissions")
      .values({ ...row, id, queue_id, pr_number, pr_author, submitted_at })
      .onConflict((oc) => oc.column("id").doUpdateSet(row)),
);

async function saveSubmission(trx: Transaction<Database>, state: QueueState, prNumber: number) {
  const pr = state.prs[prNumber]!;
  const view = pullRequestView(state, pr.number);
  await upsertSubmission(trx, {
    id: pr.submissionId,
    queue_id: state.queueId,
    pr_number: pr.number,
    pr_author: pr.author,
    submitted_at: pr.submittedAt,
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
  });
}

/** A test run's record, inserted or brought up to date. */
const upsertTestRun = preparedRecordQuery(
  (db, { id, queue_id, started_at, ...row }: Required<Insertable<TestRunsTable>>) =>
    db
      .insertInto("test_runs")
      .values({ ...row, id, queue_id, started_at })
      .onConflict((oc) => oc.column("id").doUpdateSet(row)),
);

async function saveTestRun(
  trx: Transaction<Database>,
  state: QueueState,
  runId: string,
  prUrl: (prNumber: number) => string,
) {
  const run = state.runs[runId]!;
  await upsertTestRun(trx, {
    id: run.id,
    queue_id: state.queueId,
    started_at: run.startedAt,
    status: run.status,
    test_branch: run.testBranch,
    test_branch_sha: run.testBranchSha,
    ended_at: run.endedAt,
    end_reason: run.endReason,
    purpose: run.purpose ?? "main",
    record: JSON.stringify(testRunView(state, run.id, prUrl)),
  });
}
