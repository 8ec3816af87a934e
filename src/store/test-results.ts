// Uploads of JUnit results, one row per result, and the failures among them (docs/test-health.md#uploading-results-from-ci, #classification, #listings).
import { type Kysely, sql } from "kysely";
import type { CommonFailure, RunCounts, TestOutcome, TestRun } from "../test-health/index.ts";
import { insertValues } from "./bulk-insert.ts";
import type { Dialect } from "./connection.ts";
import type { Database } from "./schema.ts";
import type { Upload, UploadResultsContext } from "../ports/test-result-storage.ts";

/** Records an upload whose results follow; returns its key. */
export async function insertUpload(db: Kysely<Database>, upload: Upload): Promise<number> {
  const row = await db
    .insertInto("test_uploads")
    .values({
      id: upload.id,
      repository_id: upload.repositoryId,
      commit_sha: upload.commitSha,
      branch: upload.branch,
      pr_number: upload.prNumber,
      job_name: upload.jobName,
      variant: upload.variant,
      run_url: upload.runUrl,
      started_at: upload.startedAt,
      received_at: upload.receivedAt,
      test_results: 0,
      failures: 0,
    })
    .returning("key")
    .executeTakeFirstOrThrow();
  return row.key;
}

export async function recordUploadCounts(
  db: Kysely<Database>,
  uploadKey: number,
  counts: { testResults: number; failures: number },
): Promise<void> {
  await db
    .updateTable("test_uploads")
    .set({ test_results: counts.testResults, failures: counts.failures })
    .where("key", "=", uploadKey)
    .execute();
}

/**
 * Inserts an upload's results and failures given as flat arrays of their own values, row after row: results
 * [test key, seq, outcome], failures [test key, seq, summary]. What the upload's rows share is bound once.
 */
export async function insertResults(
  db: Kysely<Database>,
  dialect: Dialect,
  context: UploadResultsContext,
  results: readonly unknown[],
  failures: readonly unknown[],
): Promise<void> {
  const { uploadKey, occurredAt, repositoryId, receivedAt } = context;
  await insertValues(db, dialect, "test_results", ["test_key", "seq", "outcome"], results, {
    shared: { columns: ["occurred_at", "upload_key"], values: [occurredAt, uploadKey] },
  });
  await insertValues(db, dialect, "test_failures", ["test_key", "seq", "summary"], failures, {
    shared: {
      columns: ["occurred_at", "upload_key", "repository_id", "received_at"],
      values: [occurredAt, uploadKey, repositoryId, receivedAt],
    },
  });
}

// Per-test reads go in chunks of this many keys.
const KEY_CHUNK = 500;

function chunks<T>(items: readonly T[]): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += KEY_CHUNK)
    result.push(items.slice(start, start + KEY_CHUNK));
  return result;
}

/**
 * The runs (skipped results excluded) of each test since `since`, in the order classification needs: by time,
 * then by upload, then in the order of the report (re-runs of one upload keep their order).
 */
export async function runHistory(
  db: Kysely<Database>,
  testKeys: readonly number[],
  since: number,
): Promise<Map<number, TestRun[]>> {
  const history = new Map<number, TestRun[]>(testKeys.map((key) => [key, []]));
  for (const chunk of chunks(testKeys)) {
    const rows = await db
      .selectFrom("test_results as r")
      .innerJoin("test_uploads as u", "u.key", "r.upload_key")
      .select(["r.test_key", "r.outcome", "r.occurred_at", "u.commit_sha", "u.branch"])
      .where("r.test_key", "in", chunk)
      .where("r.occurred_at", ">=", since)
      .where("r.outcome", "<>", "skipped")
      .orderBy("r.test_key")
      .orderBy("r.occurred_at")
      .orderBy("u.received_at")
      .orderBy("u.key")
      .orderBy("r.seq")
      .execute();
    for (const row of rows) {
      history.get(row.test_key)?.push({
        outcome: row.outcome as TestOutcome,
        commitSha: row.commit_sha,
        branch: row.branch,
        timestamp: new Date(row.occurred_at),
      });
    }
  }
  return history;
}

const DAY_MS = 24 * 3600 * 1000;

/** docs/test-health.md#listings: runs and failures of each test in the last 7 days and the last 24 hours before `now`. */
export async function runCounts(
  db: Kysely<Database>,
  testKeys: readonly number[],
  now: number,
): Promise<Map<number, RunCounts>> {
  const counts = new Map<number, RunCounts>();
  for (const chunk of chunks(testKeys)) {
    const rows = await db
      .selectFrom("test_results")
      .select((eb) => [
        "test_key",
        eb.fn.countAll<number>().as("runs_7d"),
        sql<number>`sum(case when outcome = 'failed' then 1 else 0 end)`.as("failures_7d"),
        sql<number>`sum(case when occurred_at >= ${now - DAY_MS} then 1 else 0 end)`.as("runs_24h"),
        sql<number>`sum(case when outcome = 'failed' and occurred_at >= ${now - DAY_MS} then 1 else 0 end)`.as(
          "failures_24h",
        ),
      ])
      .where("test_key", "in", chunk)
      .where("occurred_at", ">=", now - 7 * DAY_MS)
      .where("outcome", "<>", "skipped")
      .groupBy("test_key")
      .execute();
    for (const row of rows) {
      counts.set(row.test_key, {
        runsLast7d: Number(row.runs_7d),
        failuresLast7d: Number(row.failures_7d),
        runsLast24h: Number(row.runs_24h),
        failuresLast24h: Number(row.failures_24h),
      });
    }
  }
  return counts;
}

/** docs/test-health.md#listings: the failures of each test since `since` grouped by summary, most frequent first, top `limit`. */
export async function commonFailures(
  db: Kysely<Database>,
  testKeys: readonly number[],
  since: number,
  limit: number,
): Promise<Map<number, CommonFailure[]>> {
  const grouped = new Map<number, CommonFailure[]>();
  for (const chunk of chunks(testKeys)) {
    const rows = await db
      .selectFrom("test_failures")
      .select((eb) => [
        "test_key",
        "summary",
        eb.fn.countAll<number>().as("occurrences"),
        eb.fn.max("occurred_at").as("last_occurrence"),
      ])
      .where("test_key", "in", chunk)
      .where("occurred_at", ">=", since)
      .groupBy(["test_key", "summary"])
      .execute();
    for (const row of rows) {
      let list = grouped.get(row.test_key);
      if (list === undefined) grouped.set(row.test_key, (list = []));
      list.push({
        summary: row.summary,
        occurrenceCount: Number(row.occurrences),
        lastOccurrence: Number(row.last_occurrence),
      });
    }
  }
  for (const [key, list] of grouped) {
    list.sort(
      (a, b) =>
        b.occurrenceCount - a.occurrenceCount ||
        b.lastOccurrence - a.lastOccurrence ||
        (a.summary < b.summary ? -1 : a.summary > b.summary ? 1 : 0),
    );
    grouped.set(key, list.slice(0, limit));
  }
  return grouped;
}

/** docs/test-health.md#listings: distinct pull requests with a failure of each test since `since`. */
export async function pullRequestsImpacted(
  db: Kysely<Database>,
  testKeys: readonly number[],
  since: number,
): Promise<Map<number, number>> {
  const counts = new Map<number, number>();
  for (const chunk of chunks(testKeys)) {
    const rows = await db
      .selectFrom("test_failures as f")
      .innerJoin("test_uploads as u", "u.key", "f.upload_key")
      .select((eb) => ["f.test_key", eb.fn.count<number>("u.pr_number").distinct().as("pull_requests")])
      .where("f.test_key", "in", chunk)
      .where("f.occurred_at", ">=", since)
      .where("u.pr_number", "is not", null)
      .groupBy("f.test_key")
      .execute();
    for (const row of rows) counts.set(row.test_key, Number(row.pull_requests));
  }
  return counts;
}

/** Removes the uploads, results and failures from before `cutoff` (TEST_RESULTS_RETENTION_DAYS). */
export async function purgeResults(db: Kysely<Database>, cutoff: number): Promise<number> {
  // Results are keyed by test first: going through the test cases turns the purge into one index range per test
  // instead of a scan of every result.
  const results = await db
    .deleteFrom("test_results")
    .where("test_key", "in", (eb) => eb.selectFrom("test_cases").select("key"))
    .where("occurred_at", "<", cutoff)
    .executeTakeFirst();
  await db.deleteFrom("test_failures").where("occurred_at", "<", cutoff).execute();
  await db.deleteFrom("test_uploads").where("started_at", "<", cutoff).execute();
  return Number(results.numDeletedRows);
}
