// The streaming JUnit XML parser (docs/test-health.md#uploading-results-from-ci); junit-documents.ts feeds it a document. A report is read element by element with saxes and never
// materialised as a tree: only the test case being read and the enclosing suites' names are held, so memory stays
// bounded by the largest single XML token, whatever the number of test cases.
import { SaxesParser, type SaxesTagPlain } from "saxes";
import type { FailureKind } from "../test-health/index.ts";
import {
  type FailureDetails,
  JunitParseError,
  type ParsedTestCase,
  type TestAttempt,
} from "./parsed-report.ts";

// Bounds on what is kept from one test case, so that absurd values cannot exhaust memory or the database.
export const MAX_NAME_CHARS = 4096;
export const MAX_MESSAGE_CHARS = 8192;
export const MAX_FAILURE_TEXT_CHARS = 64 * 1024;
export const MAX_ELEMENT_DEPTH = 64;
const TRUNCATION_MARK = "\n[truncated]";
// Durations above this are a runner's bug or a clock jump, not a test's duration.
const MAX_DURATION_SECONDS = 7 * 24 * 3600;
// The classname jest-junit gives a test file that failed to load (reportTestSuiteErrors), whatever its templates.
const JEST_SUITE_FAILED = "Test suite failed to run";

const RESULT_ELEMENTS = new Map<string, { kind: FailureKind; role: "primary" | "rerun" | "flaky" }>([
  ["failure", { kind: "failure", role: "primary" }],
  ["error", { kind: "error", role: "primary" }],
  // Maven Surefire and Gradle (mergeReruns): each rerun failed too.
  ["rerunFailure", { kind: "failure", role: "rerun" }],
  ["rerunError", { kind: "error", role: "rerun" }],
  // Maven Surefire and Gradle (mergeReruns): this run failed, a later rerun passed.
  ["flakyFailure", { kind: "failure", role: "flaky" }],
  ["flakyError", { kind: "error", role: "flaky" }],
]);

type Frame =
  | { kind: "container" }
  | { kind: "suite"; name: string; filePath: string }
  | { kind: "case" }
  | { kind: "result" }
  | { kind: "ignored" };

// Most test cases ran once and passed (or were skipped): they share their attempts, which nobody changes.
const PASSED_ONCE: readonly TestAttempt[] = Object.freeze([
  Object.freeze({ outcome: "passed", failure: null }),
]);
const SKIPPED_ONCE: readonly TestAttempt[] = Object.freeze([
  Object.freeze({ outcome: "skipped", failure: null }),
]);

// The frames without data are shared: a report opens several elements per test case.
const CONTAINER: Frame = { kind: "container" };
const CASE: Frame = { kind: "case" };
const RESULT: Frame = { kind: "result" };
const IGNORED: Frame = { kind: "ignored" };

interface CaseBuilder {
  name: string;
  classname: string;
  /** PHPUnit's `class` attribute (the class with backslashes), "" when absent. */
  phpunitClass: string;
  parent: string;
  filePath: string;
  durationMs: number | null;
  primary: FailureDetails | null;
  reruns: FailureDetails[];
  flakes: FailureDetails[];
  skipped: boolean;
}

interface ResultBuilder {
  kind: FailureKind;
  role: "primary" | "rerun" | "flaky";
  message: string;
  type: string;
  textParts: string[];
  textChars: number;
  truncated: boolean;
}

// Characters XML 1.0 forbids. Real reports carry them (ANSI colour codes in captured output); they are replaced
// rather than failing the whole upload, like the bytes of invalid UTF-8.
const INVALID_XML_CHARS =
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A push parser for one JUnit XML document: feed it with `write` (text or UTF-8 bytes, in chunks cut anywhere),
 * then call `end`. Each test case is handed to `onTestCase` as soon as its element closes. Every problem with the
 * document is thrown as a {@link JunitParseError}; the parser is unusable afterwards.
 */
export class JunitDocumentParser {
  private readonly documentIndex: number;
  private readonly onTestCase: (testCase: ParsedTestCase) => void;
  private readonly sax = new SaxesParser();
  private readonly decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: false });
  private readonly frames: Frame[] = [];
  private currentCase: CaseBuilder | null = null;
  private currentResult: ResultBuilder | null = null;
  private previousCase: CaseBuilder | null = null;
  private startOfDocument = true;
  private heldHighSurrogate = "";

  constructor(options: { documentIndex: number; onTestCase: (testCase: ParsedTestCase) => void }) {
    this.documentIndex = options.documentIndex;
    this.onTestCase = options.onTestCase;
    this.sax.on("error", (error) => {
      throw this.fail(describeSaxesError(error.message));
    });
    // A DOCTYPE is refused outright, so no entity declaration is ever expanded (billion laughs).
    this.sax.on("doctype", () => {
      throw this.fail("a DOCTYPE is not allowed in a JUnit report");
    });
    this.sax.on("opentag", (tag) => this.openElement(tag));
    this.sax.on("closetag", () => this.closeElement());
    this.sax.on("text", (text) => this.appendText(text));
    this.sax.on("cdata", (text) => this.appendText(text));
  }

  write(chunk: string | Uint8Array): void {
    if (typeof chunk === "string") {
      // A pending partial UTF-8 sequence from byte chunks ends here.
      this.writeText(this.decoder.decode() + chunk);
    } else {
      this.writeText(this.decoder.decode(chunk, { stream: true }));
    }
  }

  end(): void {
    this.writeText(this.decoder.decode());
    const rest = this.heldHighSurrogate;
    this.heldHighSurrogate = "";
    if (rest !== "") this.sax.write(sanitized(rest));
    this.sax.close();
  }

  private writeText(decoded: string): void {
    let text = this.heldHighSurrogate + decoded;
    this.heldHighSurrogate = "";
    if (text === "") return;
    if (this.startOfDocument) {
      this.startOfDocument = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    // A surrogate pair cut between two chunks is reassembled before it is checked.
    const last = text.charCodeAt(text.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) {
      this.heldHighSurrogate = text.slice(-1);
      text = text.slice(0, -1);
    }
    this.sax.write(sanitized(text));
  }

  private fail(reason: string): JunitParseError {
    return new JunitParseError(this.documentIndex, this.sax.line, this.sax.column + 1, reason);
  }

  private openElement(tag: SaxesTagPlain): void {
    if (this.frames.length >= MAX_ELEMENT_DEPTH) {
      throw this.fail(`elements are nested more than ${MAX_ELEMENT_DEPTH} deep`);
    }
    const parent = this.frames.at(-1);
    if (parent === undefined && tag.name !== "testsuites" && tag.name !== "testsuite") {
      throw this.fail(`the root element is <${tag.name}>, not <testsuites> or <testsuite>`);
    }
    this.frames.push(this.frameFor(tag, parent));
  }

  private frameFor(tag: SaxesTagPlain, parent: Frame | undefined): Frame {
    const attributes = tag.attributes;
    if (parent === undefined || parent.kind === "container" || parent.kind === "suite") {
      if (tag.name === "testsuites") return CONTAINER;
      if (tag.name === "testsuite") {
        const inherited = this.innermostSuite();
        return {
          kind: "suite",
          name: bounded(attributes.name, MAX_NAME_CHARS),
          filePath: bounded(attributes.file, MAX_NAME_CHARS) || (inherited?.filePath ?? ""),
        };
      }
      if (tag.name === "testcase") {
        const suite = this.innermostSuite();
        this.currentCase = {
          name: bounded(attributes.name, MAX_NAME_CHARS),
          classname: bounded(attributes.classname, MAX_NAME_CHARS),
          phpunitClass: bounded(attributes.class, MAX_NAME_CHARS),
          parent: suite?.name ?? "",
          filePath: bounded(attributes.file, MAX_NAME_CHARS) || (suite?.filePath ?? ""),
          durationMs: parseDurationMs(attributes.time),
          primary: null,
          reruns: [],
          flakes: [],
          skipped: false,
        };
        return CASE;
      }
      return IGNORED;
    }
    if (parent.kind === "case") {
      const result = RESULT_ELEMENTS.get(tag.name);
      if (result !== undefined) {
        this.currentResult = {
          kind: result.kind,
          role: result.role,
          message: bounded(attributes.message, MAX_MESSAGE_CHARS),
          type: bounded(attributes.type, MAX_NAME_CHARS),
          textParts: [],
          textChars: 0,
          truncated: false,
        };
        return RESULT;
      }
      if (tag.name === "skipped" && this.currentCase !== null) this.currentCase.skipped = true;
      return IGNORED;
    }
    // Inside a rerun or flaky element Surefire nests the trace in <stackTrace>, next to the captured output.
    if (parent.kind === "result" && tag.name !== "system-out" && tag.name !== "system-err") {
      return RESULT;
    }
    return IGNORED;
  }

  private innermostSuite(): { name: string; filePath: string } | undefined {
    for (let index = this.frames.length - 1; index >= 0; index--) {
      const frame = this.frames[index];
      if (frame?.kind === "suite") return frame;
    }
    return undefined;
  }

  private closeElement(): void {
    const frame = this.frames.pop();
    if (frame?.kind === "result" && this.frames.at(-1)?.kind === "case") this.finishResult();
    else if (frame?.kind === "case") this.finishCase();
  }

  private appendText(text: string): void {
    const result = this.currentResult;
    if (result === null || result.truncated || this.frames.at(-1)?.kind !== "result") return;
    const room = MAX_FAILURE_TEXT_CHARS - result.textChars;
    if (text.length > room) {
      result.textParts.push(bounded(text, room));
      result.truncated = true;
    } else {
      result.textParts.push(text);
    }
    result.textChars += text.length;
  }

  private finishResult(): void {
    const result = this.currentResult;
    const testCase = this.currentCase;
    this.currentResult = null;
    if (result === null || testCase === null) return;
    // The whitespace around the text is the report's indentation, not the runner's output.
    let text = result.textParts.join("").trim();
    if (result.message === "" && testCase.phpunitClass !== "") {
      text = withoutTestHeader(text, `${testCase.phpunitClass}::${testCase.name}`);
    }
    const details: FailureDetails = {
      kind: result.kind,
      message: result.message,
      type: result.type,
      text: text + (result.truncated ? TRUNCATION_MARK : ""),
    };
    if (result.role === "rerun") testCase.reruns.push(details);
    else if (result.role === "flaky") testCase.flakes.push(details);
    // jest-junit writes one <failure> per failure message; the first one says why the test failed.
    else testCase.primary ??= details;
  }

  private finishCase(): void {
    const builder = this.currentCase;
    const previous = this.previousCase;
    this.currentCase = null;
    this.previousCase = builder;
    if (builder === null || isJestLoadErrorEcho(builder, previous)) return;
    const { primary, reruns, flakes } = builder;
    let attempts: readonly TestAttempt[];
    let failure: FailureDetails | null = null;
    if (primary !== null || reruns.length > 0) {
      const failures = primary === null ? reruns : [primary, ...reruns];
      attempts = failures.map((details) => ({ outcome: "failed", failure: details }));
      failure = failures[0] ?? null;
    } else if (flakes.length > 0) {
      // Surefire's flaky test: every listed run failed, and the last run, which the element stands for, passed.
      attempts = [
        ...flakes.map((details): TestAttempt => ({ outcome: "failed", failure: details })),
        PASSED_ONCE[0] as TestAttempt,
      ];
    } else {
      attempts = builder.skipped ? SKIPPED_ONCE : PASSED_ONCE;
    }
    this.onTestCase({
      name: builder.name,
      classname: builder.classname,
      parent: builder.parent,
      filePath: builder.filePath,
      durationMs: builder.durationMs,
      outcome: attempts.at(-1)?.outcome ?? "passed",
      failure,
      attempts,
    });
  }
}

/**
 * PHPUnit's JUnit logger writes no message attribute, and starts the text with the test's name (`Class::method`,
 * followed by a data set's values): as the first line it would stand for every failure of the test in summaries,
 * whatever the failure. It is left out when a line of the failure follows it.
 */
function withoutTestHeader(text: string, header: string): string {
  const newline = text.indexOf("\n");
  if (newline === -1) return text;
  const first = text.slice(0, newline).trimEnd();
  if (first !== header && !first.startsWith(`${header} `)) return text;
  const rest = text.slice(newline + 1).trim();
  return rest === "" ? text : rest;
}

/**
 * jest-junit writes a test file that failed to load twice, as two test case elements named after the file: an
 * `<error>` with Jest's message, then a `<failure>` holding the same error as JSON (`{}` for a thrown Error), which
 * it adds for any suite with an execution error. The second is not another run: counting it would record each load
 * error as two failures, one of them unreadable.
 */
function isJestLoadErrorEcho(testCase: CaseBuilder, previous: CaseBuilder | null): boolean {
  return (
    previous !== null &&
    testCase.classname === JEST_SUITE_FAILED &&
    previous.classname === JEST_SUITE_FAILED &&
    testCase.name === previous.name &&
    testCase.parent === previous.parent &&
    testCase.filePath === previous.filePath &&
    previous.primary?.kind === "error" &&
    testCase.primary?.kind === "failure"
  );
}

/**
 * Reads a `time` attribute in seconds as milliseconds. Tolerates thousands separators ("1,234.5", as old Surefire
 * versions wrote in some locales) and a decimal comma ("0,25"); anything unreadable, negative or longer than a
 * week is null.
 */
export function parseDurationMs(raw: string | undefined): number | null {
  if (raw === undefined) return null;
  let text = raw.trim();
  if (/^[1-9]\d{0,2}(?:,\d{3})+(?:\.\d+)?$/.test(text)) text = text.replaceAll(",", "");
  else if (/^\d+,\d+$/.test(text)) text = text.replace(",", ".");
  if (!/^(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i.test(text)) return null;
  const seconds = Number(text);
  if (!Number.isFinite(seconds) || seconds > MAX_DURATION_SECONDS) return null;
  // Microsecond precision is all any runner reports meaningfully.
  return Math.round(seconds * 1_000_000) / 1000;
}

function sanitized(text: string): string {
  return text.replace(INVALID_XML_CHARS, "\uFFFD");
}

function bounded(value: string | undefined, maxChars: number): string {
  if (value === undefined) return "";
  if (value.length <= maxChars) return value;
  // Never leave half of a surrogate pair at the cut.
  const last = value.charCodeAt(maxChars - 1);
  return value.slice(0, last >= 0xd800 && last <= 0xdbff ? maxChars - 1 : maxChars);
}

// saxes prefixes its messages with "line:column: "; the position is reported separately.
function describeSaxesError(message: string): string {
  const reason = message.replace(/^\d+:\d+: /, "").replace(/\.$/, "");
  const unclosed = /^unclosed tag: (.*)$/.exec(reason);
  if (unclosed !== null) return `unexpected end of document: <${unclosed[1]}> is not closed`;
  if (reason === "unexpected end") return "unexpected end of document";
  if (reason === "document must contain a root element") return "the document is empty: no root element";
  if (reason === "undefined entity") {
    return "undefined entity: only &lt; &gt; &amp; &quot; &apos; and character references are allowed";
  }
  return reason;
}
