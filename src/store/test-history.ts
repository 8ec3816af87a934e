// What a test's page shows beyond its record: the test found by its id alone (the page's address names no
// repository), and its latest results, each with the upload it came in and the failure it recorded.
import type { Kysely } from "kysely";
import type { Repository } from "./repositories.ts";
import type { Database } from "./schema.ts";
import type { TestCase } from "../test-health/index.ts";
import { testCaseFromRow } from "./test-cases.ts";
import type { RecentResult } from "../ports/test-page-reads.ts";
export type { RecentResult } from "../ports/test-page-reads.ts";

/** A test case and its repository, by the test's id (unique across repositories: docs/test-health.md#test-identity). */
export async function findTestCaseById(
  db: Kysely<Database>,
  id: string,
): Promise<{ testCase: TestCase; repository: Repository } | undefined> {
  const row = await db
    .selectFrom("test_cases")
    .innerJoin("repositories", "repositories.id", "test_cases.repository_id")
    .selectAll("test_cases")
    .select([
      "repositories.host",
      "repositories.owner",
      "repositories.name as repository_name",
      "repositories.installation_id",
    ])
    .where("test_cases.id", "=", id)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  const { host, owner, repository_name: name, installation_id: installationId, ...testCase } = row;
  return {
    testCase: testCaseFromRow(testCase),
    repository: { id: testCase.repository_id, host, owner, name, installationId },
  };
}

/** The test's `limit` latest results, newest first (re-runs of one upload in reverse report order). */
export async function recentResults(
  db: Kysely<Database>,
  testKey: number,
  limit: number,
): Promise<RecentResult[]> {
  const rows = await db
    .selectFrom("test_results as r")
    .innerJoin("test_uploads as u", "u.key", "r.upload_key")
    .leftJoin("test_failures as f", (join) =>
      join
        .onRef("f.test_key", "=", "r.test_key")
        .onRef("f.occurred_at", "=", "r.occurred_at")
        .onRef("f.upload_key", "=", "r.upload_key")
        .onRef("f.seq", "=", "r.seq"),
    )
    .select([
      "r.occurred_at",
      "r.outcome",
      "u.branch",
      "u.commit_sha",
      "u.pr_number",
      "u.job_name",
      "u.run_url",
      "f.summary",
    ])
    .where("r.test_key", "=", testKey)
    .orderBy("r.occurred_at", "desc")
    .orderBy("r.upload_key", "desc")
    .orderBy("r.seq", "desc")
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    occurredAt: Number(row.occurred_at),
    outcome: row.outcome,
    branch: row.branch,
    commitSha: row.commit_sha,
    prNumber: row.pr_number,
    jobName: row.job_name,
    runUrl: row.run_url,
    failureSummary: row.summary,
  }));
}
