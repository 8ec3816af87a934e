// What an upload answers (docs/test-health.md#endpoints): the same again when a repeat of it is answered from its receipt.

export interface FailedTest {
  testId: string;
  name: string;
  classname: string;
  filePath: string;
}

/** A test whose final outcome in an upload was a failure, and its health once the upload was classified. */
export interface FailingTestHealth {
  /** The test's class name and name, as people read them. */
  name: string;
  /** A quarantined test is `quarantined`, whatever its classification. */
  health: "healthy" | "flaky" | "broken" | "quarantined";
}

export interface UploadOutcome {
  uploadId: string;
  /** Every test case of the reports, skipped ones included. */
  testResults: number;
  /** Distinct tests whose final outcome in the upload was a failure. */
  failures: number;
  quarantinedFailures: number;
  unquarantinedFailures: FailedTest[];
  /** True when the upload has failures and each of them is a quarantined test. */
  allFailuresQuarantined: boolean;
  /**
   * Every failing test with its health, for the merge queue (docs/flake-evidence.md); not part of the answer.
   * Absent from the receipts of uploads stored before it was kept.
   */
  failingTestHealth?: FailingTestHealth[];
}
