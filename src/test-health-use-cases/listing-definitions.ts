// The test-health listings (docs/test-health.md#listings) as readPage walks them: what each lists, how its rows are counted and
// read as of a snapshot, and its sort key. The /v1 listing endpoints and a repository's page read the same ones.
import {
  type FailingTest,
  type FailureCountKey,
  failureCountKey,
  type HealthStatus,
  isFailureCountKey,
  isQuarantineKey,
  isStatusChangeKey,
  quarantineKey,
  type QuarantineKey,
  type StatusChangeKey,
  statusChangeKey,
  type TestCase,
} from "../test-health/index.ts";
import type { TestListingReads } from "../ports/test-listing-reads.ts";
import { type Listing, PageTokens } from "./page-tokens.ts";

const DAY_MS = 24 * 3600 * 1000;

/** The repository a listing is of: only its id is read. */
type ListedRepository = { id: string };

/** The signer of the listings' page tokens, read from the database once, when first needed. */
export function listingPageTokens(reads: TestListingReads): () => Promise<PageTokens> {
  let pageTokens: Promise<PageTokens> | undefined;
  return () => (pageTokens ??= reads.pageTokenSecret().then((secret) => new PageTokens(secret)));
}

/** Flaky or broken tests, most recent status change first. */
export function unhealthyTestsListing(
  reads: TestListingReads,
  repository: ListedRepository,
  status: Exclude<HealthStatus, "healthy">,
): Listing<TestCase, StatusChangeKey> {
  return {
    query: ["unhealthy", repository.id, status],
    count: (snapshot) => reads.countUnhealthyTests(repository.id, status, snapshot),
    page: (snapshot, position, limit) =>
      reads.unhealthyTestsPage(repository.id, status, snapshot, position, limit),
    keyOf: statusChangeKey,
    isKey: isStatusChangeKey,
  };
}

/** Quarantined tests, most recently quarantined first. */
export function quarantinedTestsListing(
  reads: TestListingReads,
  repository: ListedRepository,
): Listing<TestCase, QuarantineKey> {
  return {
    query: ["quarantined", repository.id],
    count: (snapshot) => reads.countQuarantinedTests(repository.id, snapshot),
    page: (snapshot, position, limit) => reads.quarantinedTestsPage(repository.id, snapshot, position, limit),
    keyOf: quarantineKey,
    isKey: isQuarantineKey,
  };
}

/** Which failures a failing-tests walk counts: [from, to) as of the walk's snapshot, and what names the range. */
export interface FailureWindow {
  query: readonly (string | number)[];
  range(snapshot: number): { from: number; to: number };
}

/** Tests with failures in a window, most failures first, then by name. */
export function failingTestsListing(
  reads: TestListingReads,
  repository: ListedRepository,
  window: FailureWindow,
  retentionDays: number,
): Listing<FailingTest, FailureCountKey> {
  // Results older than the retention at the walk's snapshot are not counted, so that no purge during the walk
  // changes a count (the purge keeps results a snapshot's lifetime longer than the retention).
  const rangeAt = (snapshot: number) => {
    const { from, to } = window.range(snapshot);
    return {
      repositoryId: repository.id,
      from: Math.max(from, snapshot - retentionDays * DAY_MS),
      to,
      snapshot,
    };
  };
  return {
    query: ["failing", repository.id, ...window.query],
    count: (snapshot) => reads.countFailingTests(rangeAt(snapshot)),
    page: (snapshot, position, limit) => reads.failingTestsPage(rangeAt(snapshot), position, limit),
    keyOf: failureCountKey,
    isKey: isFailureCountKey,
  };
}
