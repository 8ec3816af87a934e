// docs/test-health.md#listings: `most_common_failures` groups failures by a summary in which the parts that change from one run
// to the next (numbers, addresses, ids) are normalised, so that the same failure groups together.

/** Which element reported a failure: `failure` (an assertion) or `error` (an unexpected exception). */
export type FailureKind = "failure" | "error";

/** What a summary is made from: the failure's message and text, and the element that reported it. */
export interface FailureText {
  kind: FailureKind;
  message: string;
  text: string;
}

export const MAX_SUMMARY_CHARS = 200;

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
// 0x-prefixed values, and bare runs of 7 or more hex digits holding at least one digit and one letter (commit
// SHAs, object ids), so that words such as "deadbeef" or "accede" stay words.
const HEX = /\b0x[0-9a-f]+\b|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b/gi;
// Digits that are not part of an identifier (utf8, TestCase2): counts, durations, ports, line numbers.
const NUMBER = /(?<![A-Za-z_])\d+(?:\.\d+)*/g;

/** The summary of one failure: the first line of its message, else of its text, else the element's name. */
export function summarizeFailure(failure: FailureText): string {
  const line = firstLine(failure.message) ?? firstLine(failure.text) ?? failure.kind;
  return normalizeSummary(line);
}

/** Normalises volatile parts to `<uuid>`, `<hex>` and `<n>`, collapses whitespace and bounds the length. */
export function normalizeSummary(line: string): string {
  const normalized = line
    .replace(UUID, "<uuid>")
    .replace(HEX, "<hex>")
    .replace(NUMBER, "<n>")
    .replace(/\s+/g, " ")
    .trim();
  if (normalized.length <= MAX_SUMMARY_CHARS) return normalized;
  return `${Array.from(normalized.slice(0, MAX_SUMMARY_CHARS)).slice(0, -1).join("")}…`;
}

// The first line that is not blank.
function firstLine(text: string): string | undefined {
  return text.split(/\r\n|\r|\n/).find((line) => line.trim() !== "");
}
