// What ingestion stores of a batch of test cases (docs/test-health.md#uploading-results-from-ci, #test-identity): the batch's distinct tests, each with its id
// and every attempt of every test case element with that id (report-reader.ts).
import {
  type RepoRef,
  relativeFilePath,
  summarizeFailure,
  testCaseId,
  type TestOutcome,
} from "../test-health/index.ts";
import type { ParsedTestCase } from "./parsed-report.ts";

export interface ReadBatch {
  /** Test case elements read, skipped ones included: more than the tests when a report repeats a test. */
  testCases: number;
  /** The batch's distinct tests, in the order of their first test case element. */
  tests: ReadTest[];
  /** Each attempt's outcome, as its index in OUTCOMES; a test's attempts are next to each other. */
  outcomes: Uint8Array;
  /** Each attempt's upload-wide position: re-runs keep their order. */
  seqs: Int32Array;
  /** The failure summary of each failed attempt, in the order of the attempts. */
  failureSummaries: string[];
}

export const OUTCOMES: readonly TestOutcome[] = ["passed", "failed", "skipped"];
const FAILED = OUTCOMES.indexOf("failed");

export interface TestIdentity {
  name: string;
  classname: string;
  parent: string;
  filePath: string;
}

/** A test of a batch, as ingestion reads it. */
export interface ReadTest extends TestIdentity {
  /** Its id (docs/test-health.md#test-identity). */
  id: string;
  /** Its attempts' positions in `outcomes` and `seqs`: from `firstAttempt` up to `endAttempt`. */
  firstAttempt: number;
  endAttempt: number;
  /** Whether one of its test case elements ended in a failure. */
  failedFinally: boolean;
}

export function isFailure(outcome: number): boolean {
  return outcome === FAILED;
}

/** What identifies the tests of an upload besides each test case's own attributes. */
export interface UploadIdentity {
  repository: RepoRef;
  variant: string;
  /** Where CI checked the repository out (see relativeFilePath). */
  repoRoot: string | null;
}

/**
 * Groups a batch of parsed test cases by id; their attempts are numbered from `firstSeq`. The attempts go in two
 * typed arrays, without an object per attempt: building and collecting those took as long as parsing the XML.
 */
export function readBatch(
  testCases: readonly ParsedTestCase[],
  { repository, variant, repoRoot }: UploadIdentity,
  firstSeq: number,
): ReadBatch {
  // First the tests: each test case's test, and each test's attempt count (a test repeated in the batch gathers
  // the attempts of all its test case elements).
  const testOfCase = new Int32Array(testCases.length);
  const byId = new Map<string, number>();
  const tests: ReadTest[] = [];
  let attempts = 0;
  for (const [index, testCase] of testCases.entries()) {
    const { name, classname, parent } = testCase;
    const filePath = relativeFilePath(testCase.filePath, repoRoot);
    const id = testCaseId(repository, { filePath, classname, parent, name, variant });
    let at = byId.get(id);
    if (at === undefined) {
      at = tests.length;
      byId.set(id, at);
      tests.push({
        id,
        name,
        classname,
        parent,
        filePath,
        firstAttempt: 0,
        endAttempt: 0,
        failedFinally: false,
      });
    }
    testOfCase[index] = at;
    (tests[at] as ReadTest).endAttempt += testCase.attempts.length;
    attempts += testCase.attempts.length;
  }
  // Each test's attempts follow the previous test's; `endAttempt` marks where its next attempt goes until all are in.
  let end = 0;
  for (const test of tests) {
    const count = test.endAttempt;
    test.firstAttempt = test.endAttempt = end;
    end += count;
  }
  // Then the attempts, each at its test's next place; seqs follow the order of the report.
  const outcomes = new Uint8Array(attempts);
  const seqs = new Int32Array(attempts);
  const summaryAt = new Map<number, string>();
  let seq = firstSeq;
  for (const [index, testCase] of testCases.entries()) {
    const test = tests[testOfCase[index] as number] as ReadTest;
    for (const attempt of testCase.attempts) {
      const at = test.endAttempt++;
      outcomes[at] = OUTCOMES.indexOf(attempt.outcome);
      seqs[at] = seq++;
      if (attempt.outcome === "failed") {
        summaryAt.set(at, summarizeFailure(attempt.failure ?? { kind: "failure", message: "", text: "" }));
      }
    }
    if (testCase.outcome === "failed") test.failedFinally = true;
  }
  // The summaries in the order of the attempts, as ingestion walks them.
  const summaries = [...summaryAt.keys()].sort((a, b) => a - b).map((at) => summaryAt.get(at) as string);
  return { testCases: testCases.length, tests, outcomes, seqs, failureSummaries: summaries };
}
