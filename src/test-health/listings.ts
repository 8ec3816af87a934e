// The rules of the test-health listings (docs/test-health.md#listings), apart from how rows are stored: where a page is, the sort
// key of each listing, which keys a page token may carry, and how long a walk may use its snapshot.
import type { TestCase } from "./test-case.ts";

/** Where a page is: the first or last rows, or the rows right after or right before a row's sort key. */
export type PagePosition<Key> =
  { kind: "first" } | { kind: "last" } | { kind: "after"; key: Key } | { kind: "before"; key: Key };

/** Whether a page is read in listing order (the first page, or the one after a key). */
export const forward = (position: PagePosition<unknown>) =>
  position.kind === "first" || position.kind === "after";

/** A page of rows in listing order; `more` says whether rows lie beyond it in the direction it was read. */
export interface Page<Row> {
  rows: Row[];
  more: boolean;
}

/** A page from up to `limit + 1` rows read in the page's direction: the extra row only says there are more. */
export function pageOf<Row>(rows: Row[], limit: number, position: PagePosition<unknown>): Page<Row> {
  const more = rows.length > limit;
  const kept = more ? rows.slice(0, limit) : rows;
  return { rows: forward(position) ? kept : kept.reverse(), more };
}

/** [status_changed_at, key]: most recent status change first. */
export type StatusChangeKey = [number, number];

export function statusChangeKey(testCase: TestCase): StatusChangeKey {
  return [testCase.statusChangedAt, testCase.key];
}

/** [quarantined_at, key]: most recently quarantined first. */
export type QuarantineKey = [number, number];

export function quarantineKey(testCase: TestCase): QuarantineKey {
  return [testCase.quarantinedAt ?? 0, testCase.key];
}

/** [failures in the range, name, key]: most failures first, then by name (docs/test-health.md#listings). */
export type FailureCountKey = [number, string, number];

export interface FailingTest {
  testCase: TestCase;
  failures: number;
}

export function failureCountKey(failing: FailingTest): FailureCountKey {
  return [failing.failures, failing.testCase.name, failing.testCase.key];
}

const isNumberPair = (value: unknown): value is [number, number] =>
  Array.isArray(value) && value.length === 2 && value.every(Number.isSafeInteger);

/** Whether a page token's key can be a status-change or quarantine key. */
export const isStatusChangeKey: (value: unknown) => value is StatusChangeKey = isNumberPair;
export const isQuarantineKey: (value: unknown) => value is QuarantineKey = isNumberPair;

/** Whether a page token's key can be a failure-count key. */
export const isFailureCountKey = (value: unknown): value is FailureCountKey =>
  Array.isArray(value) &&
  value.length === 3 &&
  Number.isSafeInteger(value[0]) &&
  typeof value[1] === "string" &&
  Number.isSafeInteger(value[2]);

/**
 * How long a walk through a listing may use its snapshot. The retention purge keeps results this much longer than
 * TEST_RESULTS_RETENTION_DAYS, and a walk reads results no older than the retention at its snapshot, so no purge
 * can change what a walk counts.
 */
export const LISTING_SNAPSHOT_LIFETIME_MS = 24 * 3600 * 1000;
