// Submissions of PRs to a queue, as the API reports them (interface document 2.2).
import type { Kysely, Selectable } from "kysely";
import type { Database, PullRequestSubmissionsTable } from "./schema.ts";

export type PullRequestState =
  | "not_ready"
  | "pending"
  | "testing"
  | "tests_passed"
  | "pending_failure"
  | "merged"
  | "failed"
  | "cancelled";

/** The states of a PR still in the queue (contract 4: everything but merged, failed, cancelled). */
export const activeSubmissionStates: PullRequestState[] = [
  "not_ready",
  "pending",
  "testing",
  "tests_passed",
  "pending_failure",
];

export interface Submission {
  id: string;
  queueId: string;
  prNumber: number;
  prTitle: string;
  prSha: string;
  prBaseBranch: string;
  prAuthor: string;
  state: PullRequestState;
  stateReason: string | null;
  stateDetail: string | null;
  stateChangedAt: number;
  priorityValue: number;
  usedDefaultPriority: boolean;
  skipTheLine: boolean;
  noBatch: boolean;
  submittedAt: number;
}

function fromRow(row: Selectable<PullRequestSubmissionsTable>): Submission {
  return {
    id: row.id,
    queueId: row.queue_id,
    prNumber: row.pr_number,
    prTitle: row.pr_title,
    prSha: row.pr_sha,
    prBaseBranch: row.pr_base_branch,
    prAuthor: row.pr_author,
    state: row.state as PullRequestState,
    stateReason: row.state_reason,
    stateDetail: row.state_detail,
    stateChangedAt: row.state_changed_at,
    priorityValue: row.priority_value,
    usedDefaultPriority: row.used_default_priority === 1,
    skipTheLine: row.skip_the_line === 1,
    noBatch: row.no_batch === 1,
    submittedAt: row.submitted_at,
  };
}

export async function insertSubmission(db: Kysely<Database>, submission: Submission): Promise<void> {
  await db
    .insertInto("pull_request_submissions")
    .values({
      id: submission.id,
      queue_id: submission.queueId,
      pr_number: submission.prNumber,
      pr_title: submission.prTitle,
      pr_sha: submission.prSha,
      pr_base_branch: submission.prBaseBranch,
      pr_author: submission.prAuthor,
      state: submission.state,
      state_reason: submission.stateReason,
      state_detail: submission.stateDetail,
      state_changed_at: submission.stateChangedAt,
      priority_value: submission.priorityValue,
      used_default_priority: submission.usedDefaultPriority ? 1 : 0,
      skip_the_line: submission.skipTheLine ? 1 : 0,
      no_batch: submission.noBatch ? 1 : 0,
      submitted_at: submission.submittedAt,
    })
    .execute();
}

/**
 * The queue's PRs that are not terminal, in queue order (contract 5.2): PRs that skipped the line first,
 * then priority value ascending, then submission time.
 */
export async function listEnqueued(db: Kysely<Database>, queueId: string): Promise<Submission[]> {
  const rows = await db
    .selectFrom("pull_request_submissions")
    .selectAll()
    .where("queue_id", "=", queueId)
    .where("state", "in", activeSubmissionStates)
    .orderBy("skip_the_line", "desc")
    .orderBy("priority_value")
    .orderBy("submitted_at")
    .orderBy("id")
    .execute();
  return rows.map(fromRow);
}
