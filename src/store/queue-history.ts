// What the queue pages read of a queue's past: the PRs that left it lately and how long merges took. Each read is
// bounded by a window of time over an index (queue id first), never the queue's whole history.
import { type Kysely, sql } from "kysely";
import type { Database } from "./schema.ts";
import type { RepositoryQueue, DepartedPullRequest, QueueActivity } from "../ports/queue-records.ts";
export type { RepositoryQueue, DepartedPullRequest, QueueActivity } from "../ports/queue-records.ts";

/** The repository's queues, by branch. */
export function repositoryQueues(db: Kysely<Database>, repositoryId: string): Promise<RepositoryQueue[]> {
  return db
    .selectFrom("queues")
    .select(["id", "branch"])
    .where("repository_id", "=", repositoryId)
    .orderBy("branch_key")
    .execute();
}

/** PRs that reached a final state after `since`, latest first, at most `limit` (index transitions_by_queue_time). */
export async function departedPullRequests(
  db: Kysely<Database>,
  queueId: string,
  since: number,
  limit: number,
): Promise<DepartedPullRequest[]> {
  const rows = await db
    .selectFrom("pull_request_transitions as t")
    .innerJoin("pull_request_submissions as s", "s.id", "t.submission_id")
    .select([
      "s.pr_number as prNumber",
      "s.pr_title as title",
      "s.pr_author as author",
      "t.state",
      "t.reason",
      "s.state_detail as stateDetail",
      "t.at as leftAt",
      "s.submitted_at as submittedAt",
      "s.record",
    ])
    .where("t.queue_id", "=", queueId)
    .where("t.at", ">", since)
    .where("t.state", "in", ["merged", "failed", "cancelled"])
    .orderBy("t.at", "desc")
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    prNumber: row.prNumber,
    title: row.title,
    author: row.author,
    state: row.state as DepartedPullRequest["state"],
    stateReason: row.reason,
    stateDetail: row.stateDetail ?? "",
    leftAt: row.leftAt,
    submittedAt: row.submittedAt,
    testRunId: (JSON.parse(row.record) as { testRunId?: string | null }).testRunId ?? null,
  }));
}

/** Submission to merge of each PR merged after `since`, shortest first (index transitions_by_queue_time). */
export async function mergeDurations(
  db: Kysely<Database>,
  queueId: string,
  since: number,
): Promise<number[]> {
  const rows = await db
    .selectFrom("pull_request_transitions as t")
    .innerJoin("pull_request_submissions as s", "s.id", "t.submission_id")
    .select(sql<number>`t.at - s.submitted_at`.as("duration"))
    .where("t.queue_id", "=", queueId)
    .where("t.at", ">", since)
    .where("t.state", "=", "merged")
    .execute();
  return rows.map((row) => Number(row.duration)).sort((a, b) => a - b);
}

/** The version of the queue's saved state: it changes with every step, so a page can tell it is current. */
export async function queueStateVersion(db: Kysely<Database>, queueId: string): Promise<number | undefined> {
  const row = await db
    .selectFrom("queue_states")
    .select("version")
    .where("queue_id", "=", queueId)
    .executeTakeFirst();
  return row?.version;
}

export async function queueActivity(
  db: Kysely<Database>,
  queueId: string,
  since: number,
): Promise<QueueActivity> {
  const [departures, entered, runs] = await Promise.all([
    db
      .selectFrom("pull_request_transitions as t")
      .innerJoin("pull_request_submissions as s", "s.id", "t.submission_id")
      .select(["t.at", "t.state", "s.submitted_at as submittedAt"])
      .where("t.queue_id", "=", queueId)
      .where("t.at", ">", since)
      .where("t.state", "in", ["merged", "failed", "cancelled"])
      .execute(),
    db
      .selectFrom("pull_request_submissions")
      .select("submitted_at as at")
      .where("queue_id", "=", queueId)
      .where("submitted_at", ">", since)
      .execute(),
    db
      .selectFrom("test_runs")
      .select("ended_at as at")
      .where("queue_id", "=", queueId)
      .where("ended_at", ">", since)
      .execute(),
  ]);
  return {
    merges: departures
      .filter((row) => row.state === "merged")
      .map((row) => ({ at: Number(row.at), durationMs: Number(row.at) - Number(row.submittedAt) })),
    entered: entered.map((row) => Number(row.at)),
    left: departures.map((row) => Number(row.at)),
    runsEnded: runs.map((row) => Number(row.at)),
  };
}
