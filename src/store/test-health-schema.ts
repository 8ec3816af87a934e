// Row types of the test-health tables (migration 0002). Booleans are 0/1, times epoch milliseconds.
import type { Generated } from "kysely";
import type { Flag } from "./flag.ts";

export interface TestCasesTable {
  /** Assigned by the database; what results refer to. */
  key: Generated<number>;
  /** UUIDv5 of the repository and the test's identity (docs/test-health.md#test-identity). */
  id: string;
  repository_id: string;
  name: string;
  classname: string;
  parent: string;
  file_path: string;
  variant: string;
  /** healthy, flaky or broken (docs/test-health.md#classification). */
  status: string;
  status_reason: string;
  status_changed_at: number;
  /** always, never or auto (docs/test-health.md#quarantine). */
  quarantine_setting: string;
  quarantined: Flag;
  /** When the test last became quarantined; kept after it is released. */
  quarantined_at: number | null;
  /**
   * 1 when the test was healthy without any failure in the window when it was last classified. Such a test stays
   * exactly that until a failure is uploaded, so an upload in which it passes neither reads nor writes its row,
   * and the hourly ageing pass leaves it alone (classification stays incremental: docs/test-health.md#classification).
   */
  settled: Flag;
  /** When the service first received a result of the test (retention forgets tests first seen long ago). */
  first_seen_at: number;
}

export interface TestUploadsTable {
  key: Generated<number>;
  id: string;
  repository_id: string;
  commit_sha: string;
  branch: string;
  pr_number: number | null;
  job_name: string | null;
  variant: string;
  run_url: string | null;
  /** The time of every result of the upload (docs/test-health.md#classification). */
  started_at: number;
  received_at: number;
  test_results: number;
  failures: number;
}

export interface TestResultsTable {
  test_key: number;
  occurred_at: number;
  upload_key: number;
  /** The result's position in its upload: re-runs of one test keep their order. */
  seq: number;
  /** passed, failed or skipped. */
  outcome: string;
}

export interface TestFailuresTable {
  test_key: number;
  occurred_at: number;
  upload_key: number;
  seq: number;
  repository_id: string;
  received_at: number;
  /** The normalised first line of the failure (docs/test-health.md#listings). */
  summary: string;
}

export interface ServiceSecretsTable {
  name: string;
  secret: string;
  created_at: number;
}

/** A repository's test-health settings (migration 0006); a repository without a row has the defaults. */
export interface TestHealthSettingsTable {
  repository_id: string;
  /** docs/test-health.md#quarantine: whether tests with the `auto` setting are quarantined while flaky (default on). */
  auto_quarantine: Flag;
  updated_at: number;
}

/** A ticket linked to a test case (migration 0005). */
export interface TestCaseTicketsTable {
  test_key: number;
  /** An absolute http(s) URL. */
  url: string;
  linked_at: number;
}

/**
 * What the uploads' checkouts tell of a repository (migration 0007): test health learns it from the CLI, never
 * from GitHub. A repository without a row has told nothing yet.
 */
export interface TestHealthCheckoutsTable {
  repository_id: string;
  /** The default branch, once an upload named it (docs/test-health.md#classification). */
  default_branch: string | null;
  /** The text of the checkout's CODEOWNERS ("" when it has none), once an upload sent it. */
  codeowners: string | null;
  updated_at: number;
}

/** The answer to an upload that named an idempotency key (migration 0007), kept as long as its results. */
export interface TestUploadReceiptsTable {
  repository_id: string;
  idempotency_key: string;
  /** SHA-256 of what the upload asked for: the same key with another request is refused. */
  request_hash: string;
  /** The upload's answer, as JSON. */
  answer: string;
  received_at: number;
}

export interface TestHealthTables {
  test_cases: TestCasesTable;
  test_uploads: TestUploadsTable;
  test_results: TestResultsTable;
  test_failures: TestFailuresTable;
  service_secrets: ServiceSecretsTable;
  test_case_tickets: TestCaseTicketsTable;
  test_health_settings: TestHealthSettingsTable;
  test_health_checkouts: TestHealthCheckoutsTable;
  test_upload_receipts: TestUploadReceiptsTable;
}
