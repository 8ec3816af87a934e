// What an upload answers (interface 2.6): the same again when a repeat of it is answered from its receipt.

export interface FailedTest {
  testId: string;
  name: string;
  classname: string;
  filePath: string;
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
}
