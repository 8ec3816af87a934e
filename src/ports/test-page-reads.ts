// What a test's page shows beyond its record: the test found by its id alone (the page's address names no
// repository), and its latest results. src/store/test-history.ts implements it.
import type { TestCase } from "../test-health/index.ts";
import type { Repository } from "./test-case-storage.ts";

export interface RecentResult {
  occurredAt: number;
  /** passed, failed or skipped. */
  outcome: string;
  branch: string;
  commitSha: string;
  prNumber: number | null;
  jobName: string | null;
  runUrl: string | null;
  /** The failure's summary (docs/test-health.md#listings) when the result failed. */
  failureSummary: string | null;
}

export interface TestPageReads {
  /** A test case and its repository, by the test's id (unique across repositories: docs/test-health.md#test-identity). */
  findTestCaseById(id: string): Promise<{ testCase: TestCase; repository: Repository } | undefined>;
  /** The test's latest results, newest first, at most `limit`. */
  recentResults(testKey: number, limit: number): Promise<RecentResult[]>;
}
