// What ingestion stores of a batch of test cases (docs/test-health.md#uploading-results-from-ci, #test-identity): the batch's distinct tests, each with its id
// and every attempt of every test case element with that id (report-reader.ts), in columns: a few strings and typed
// arrays instead of an object and arrays per test, which cost as much to build and collect as parsing the XML.
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
  /** Each test's id (a UUID, 36 characters), one after the other. */
  ids: string;
  /** Each test's name, classname, parent and file path, in that order, joined by SEPARATOR. */
  identities: string;
  /** Test i's attempts are attempts `attemptEnds[i - 1]` (0 for the first test) up to `attemptEnds[i]`. */
  attemptEnds: Int32Array<ArrayBuffer>;
  /** Each attempt's outcome, as its index in OUTCOMES. */
  outcomes: Uint8Array<ArrayBuffer>;
  /** Each attempt's upload-wide position: re-runs keep their order. */
  seqs: Int32Array<ArrayBuffer>;
  /** The failure summary of each failed attempt, in order, joined by SEPARATOR. */
  failureSummaries: string;
  /** 1 when a test case element of test i ended in a failure. */
  failedFinally: Uint8Array<ArrayBuffer>;
}

export const OUTCOMES: readonly TestOutcome[] = ["passed", "failed", "skipped"];
const FAILED = OUTCOMES.indexOf("failed");
/** XML 1.0 cannot hold U+0000, and the parser replaces what XML cannot hold: no text read contains it. */
const SEPARATOR = "\u0000";
const ID_LENGTH = 36;

/** A test of a batch, as ingestion reads it. */
export interface ReadTest {
  /** Its position in the batch. */
  index: number;
  id: string;
  /** Its attempts' positions in `outcomes` and `seqs`: from `firstAttempt` up to `endAttempt`. */
  firstAttempt: number;
  endAttempt: number;
  failedFinally: boolean;
}

export interface TestIdentity {
  name: string;
  classname: string;
  parent: string;
  filePath: string;
}

/** The tests of a batch. */
export function readTests(batch: ReadBatch): ReadTest[] {
  const tests: ReadTest[] = [];
  let firstAttempt = 0;
  for (const [index, endAttempt] of batch.attemptEnds.entries()) {
    const id = batch.ids.slice(index * ID_LENGTH, (index + 1) * ID_LENGTH);
    tests.push({ index, id, firstAttempt, endAttempt, failedFinally: batch.failedFinally[index] === 1 });
    firstAttempt = endAttempt;
  }
  return tests;
}

/** The identities of a batch's tests, by position: read only for the tests that are new. */
export function testIdentities(batch: ReadBatch): TestIdentity[] {
  const fields = batch.identities.split(SEPARATOR);
  const identities: TestIdentity[] = [];
  for (let at = 0; at + 3 < fields.length; at += 4) {
    identities.push({
      name: fields[at] as string,
      classname: fields[at + 1] as string,
      parent: fields[at + 2] as string,
      filePath: fields[at + 3] as string,
    });
  }
  return identities;
}

/** The failure summaries of a batch's failed attempts, in order. */
export function failureSummaries(batch: ReadBatch): string[] {
  return batch.failureSummaries.split(SEPARATOR);
}

/** The buffers of a batch's typed arrays, which can be handed to another thread instead of copied. */
export function transferables(batch: ReadBatch): ArrayBuffer[] {
  return [batch.attemptEnds.buffer, batch.outcomes.buffer, batch.seqs.buffer, batch.failedFinally.buffer];
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
 * Groups a batch of parsed test cases by id; their attempts are numbered from `firstSeq`. The columns are filled
 * in place, without an object or array per test: building and collecting those took as long
 * as parsing the XML.
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
  const ids: string[] = [];
  const identities: string[] = [];
  const attemptCounts: number[] = [];
  let attempts = 0;
  for (const [index, testCase] of testCases.entries()) {
    const { name, classname, parent } = testCase;
    const filePath = relativeFilePath(testCase.filePath, repoRoot);
    const id = testCaseId(repository, { filePath, classname, parent, name, variant });
    let test = byId.get(id);
    if (test === undefined) {
      test = ids.length;
      byId.set(id, test);
      ids.push(id);
      identities.push(name, classname, parent, filePath);
      attemptCounts.push(0);
    }
    testOfCase[index] = test;
    attemptCounts[test] = (attemptCounts[test] as number) + testCase.attempts.length;
    attempts += testCase.attempts.length;
  }
  const attemptEnds = new Int32Array(ids.length);
  // Where each test's next attempt goes.
  const next = new Int32Array(ids.length);
  let end = 0;
  for (const [test, count] of attemptCounts.entries()) {
    next[test] = end;
    end += count;
    attemptEnds[test] = end;
  }
  // Then the attempts, each at its test's next place; seqs follow the order of the report.
  const outcomes = new Uint8Array(attempts);
  const seqs = new Int32Array(attempts);
  const failedFinally = new Uint8Array(ids.length);
  const summaryAt = new Map<number, string>();
  let seq = firstSeq;
  for (const [index, testCase] of testCases.entries()) {
    const test = testOfCase[index] as number;
    for (const attempt of testCase.attempts) {
      const at = next[test] as number;
      next[test] = at + 1;
      outcomes[at] = OUTCOMES.indexOf(attempt.outcome);
      seqs[at] = seq++;
      if (attempt.outcome === "failed") {
        summaryAt.set(at, summarizeFailure(attempt.failure ?? { kind: "failure", message: "", text: "" }));
      }
    }
    if (testCase.outcome === "failed") failedFinally[test] = 1;
  }
  // The summaries in the order of the attempts, as ingestion walks them.
  const summaries = [...summaryAt.keys()].sort((a, b) => a - b).map((at) => summaryAt.get(at) as string);
  return {
    testCases: testCases.length,
    ids: ids.join(""),
    identities: identities.join(SEPARATOR),
    attemptEnds,
    outcomes,
    seqs,
    failureSummaries: summaries.join(SEPARATOR),
    failedFinally,
  };
}
