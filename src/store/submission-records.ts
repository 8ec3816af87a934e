// Reads of the submissions projection: every submission ever made to a queue, as PR records.
import type { Kysely } from "kysely";
import type { PullRequestView } from "../presentation/queue-views.ts";
import type { Database } from "./schema.ts";
import type { SubmissionPage } from "../ports/queue-records.ts";
export type { SubmissionPage } from "../ports/queue-records.ts";

/** Newest first (listPullRequests, docs/api.md#merge-queue-endpoints), keyset-paged so that every row is seen once. */
export async function listSubmissions(
  db: Kysely<Database>,
  queueId: string,
  options: {
    state?: string | undefined;
    since?: number | undefined;
    after?: { submittedAt: number; id: string } | undefined;
    take: number;
  },
): Promise<SubmissionPage> {
  let query = db
    .selectFrom("pull_request_submissions")
    .select(["id", "submitted_at", "record"])
    .where("queue_id", "=", queueId)
    .orderBy("submitted_at", "desc")
    .orderBy("id", "desc")
    .limit(options.take + 1);
  if (options.state !== undefined) query = query.where("state", "=", options.state);
  if (options.since !== undefined) query = query.where("submitted_at", ">=", options.since);
  const after = options.after;
  if (after !== undefined) {
    query = query.where((eb) =>
      eb.or([
        eb("submitted_at", "<", after.submittedAt),
        eb.and([eb("submitted_at", "=", after.submittedAt), eb("id", "<", after.id)]),
      ]),
    );
  }
  const rows = await query.execute();
  const page = rows.slice(0, options.take);
  const lastRow = page.at(-1);
  return {
    records: page.map((row) => JSON.parse(row.record) as PullRequestView),
    last:
      rows.length > options.take && lastRow !== undefined
        ? { submittedAt: lastRow.submitted_at, id: lastRow.id }
        : null,
  };
}

/** The test run record as of the run's last change, for runs the queue state no longer holds. */
export async function findTestRunRecord(
  db: Kysely<Database>,
  queueId: string,
  runId: string,
): Promise<unknown> {
  const row = await db
    .selectFrom("test_runs")
    .select("record")
    .where("queue_id", "=", queueId)
    .where("id", "=", runId)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  // Records saved before bisection existed lack its fields: every run then was a main-line run.
  return { purpose: "main", followsUpRunId: null, ...JSON.parse(row.record) };
}

/** The PR record of a PR's latest submission, also after the queue's state let go of it. */
export async function latestSubmissionRecord(
  db: Kysely<Database>,
  queueId: string,
  prNumber: number,
): Promise<PullRequestView | undefined> {
  const row = await db
    .selectFrom("pull_request_submissions")
    .select("record")
    .where("queue_id", "=", queueId)
    .where("pr_number", "=", prNumber)
    .orderBy("submitted_at", "desc")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
  return row === undefined ? undefined : (JSON.parse(row.record) as PullRequestView);
}
