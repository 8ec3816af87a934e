// What test health keeps of the uploads of JUnit results, their results and failures (docs/test-health.md#uploading-results-from-ci, #classification, #listings).
// src/store/test-health-storage.ts implements it.
import type { CommonFailure, RunCounts, TestRun } from "../test-health/index.ts";

export interface Upload {
  id: string;
  repositoryId: string;
  commitSha: string;
  branch: string;
  prNumber: number | null;
  jobName: string | null;
  variant: string;
  runUrl: string | null;
  /** The time of each of the upload's results (docs/test-health.md#classification). */
  startedAt: number;
  receivedAt: number;
}

/** What every result and failure of an upload shares. */
export interface UploadResultsContext {
  uploadKey: number;
  occurredAt: number;
  repositoryId: string;
  receivedAt: number;
}

export interface TestResultStorage {
  /** Records an upload whose results follow; returns its key. */
  insertUpload(upload: Upload): Promise<number>;
  recordUploadCounts(uploadKey: number, counts: { testResults: number; failures: number }): Promise<void>;
  /**
   * Inserts an upload's results and failures given as flat arrays of their own values, row after row: results
   * [test key, seq, outcome], failures [test key, seq, summary].
   */
  insertResults(
    context: UploadResultsContext,
    results: readonly unknown[],
    failures: readonly unknown[],
  ): Promise<void>;
  /** The runs (skipped results excluded) of each test since `since`, in the order classification needs. */
  runHistory(testKeys: readonly number[], since: number): Promise<Map<number, TestRun[]>>;
  /** docs/test-health.md#listings: runs and failures of each test in the last 7 days and the last 24 hours before `now`. */
  runCounts(testKeys: readonly number[], now: number): Promise<Map<number, RunCounts>>;
  /** docs/test-health.md#listings: the failures of each test since `since` grouped by summary, most frequent first, top `limit`. */
  commonFailures(
    testKeys: readonly number[],
    since: number,
    limit: number,
  ): Promise<Map<number, CommonFailure[]>>;
  /** docs/test-health.md#listings: distinct pull requests with a failure of each test since `since`. */
  pullRequestsImpacted(testKeys: readonly number[], since: number): Promise<Map<number, number>>;
  /** Removes the uploads, results and failures from before `cutoff`; returns how many results went. */
  purgeResults(cutoff: number): Promise<number>;
}
