// What parsing a JUnit report yields (docs/test-health.md#uploading-results-from-ci): its test cases, each with its outcome, failure and attempts,
// or a parse error that says where the document is broken.
import type { FailureKind, TestOutcome } from "../test-health/index.ts";

export interface FailureDetails {
  kind: FailureKind;
  /** The element's `message` attribute, "" when absent. */
  message: string;
  /** The element's `type` attribute, "" when absent. */
  type: string;
  /**
   * The element's text (a stack trace, usually), bounded to {@link MAX_FAILURE_TEXT_CHARS}. The line naming the
   * test that PHPUnit puts first is left out: the failure starts after it.
   */
  text: string;
}

/**
 * One execution of a test case. A report lists several when the runner re-ran a failed test
 * (Surefire and Gradle `rerunFailure`/`flakyFailure`): the classifier needs each of them, because a test
 * that failed and then passed on the same commit is flaky (docs/test-health.md#classification).
 */
export interface TestAttempt {
  outcome: TestOutcome;
  failure: FailureDetails | null;
}

export interface ParsedTestCase {
  name: string;
  classname: string;
  /** The innermost enclosing `<testsuite>`'s name (docs/test-health.md#test-identity), "" when there is none. */
  parent: string;
  /** The test case's `file` attribute, else the nearest enclosing suite's, else "" (docs/test-health.md#test-identity). */
  filePath: string;
  /** From the `time` attribute (seconds); null when absent, unreadable, negative or absurd. */
  durationMs: number | null;
  /** The final outcome: a test that failed and then passed on a re-run is `passed` here. */
  outcome: TestOutcome;
  /** The failure behind a `failed` outcome (the first `failure` or `error` element), else null. */
  failure: FailureDetails | null;
  /** Every execution in order, at least one; the last one's outcome is `outcome`. */
  attempts: readonly TestAttempt[];
}

export class JunitParseError extends Error {
  override readonly name = "JunitParseError";
  readonly documentIndex: number;
  readonly line: number;
  readonly column: number;
  readonly reason: string;

  constructor(documentIndex: number, line: number, column: number, reason: string) {
    super(`document ${documentIndex}, line ${line}, column ${column}: ${reason}`);
    this.documentIndex = documentIndex;
    this.line = line;
    this.column = column;
    this.reason = reason;
  }
}
