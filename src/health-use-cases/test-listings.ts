// The test-health listings (contract 7.5) as readPage walks them: what each lists, how its rows are counted and
// read as of a snapshot, and its sort key. The /v1 listing endpoints and a repository's page read the same ones.
import type { HealthStatus } from "../health/classification.ts";
import type { Store } from "../store/database.ts";
import type { Repository } from "../store/repositories.ts";
import { serviceSecret } from "../store/service-secrets.ts";
import type { TestCase } from "../health/test-case.ts";
import {
  countFailingTests,
  countQuarantinedTests,
  countUnhealthyTests,
  failingTestsPage,
  quarantinedTestsPage,
  unhealthyTestsPage,
} from "../store/test-listings.ts";
import {
  type FailingTest,
  type FailureCountKey,
  failureCountKey,
  isFailureCountKey,
  isQuarantineKey,
  isStatusChangeKey,
  quarantineKey,
  type QuarantineKey,
  type StatusChangeKey,
  statusChangeKey,
} from "../health/listings.ts";
import { type Listing, PageTokens } from "./page-tokens.ts";

const DAY_MS = 24 * 3600 * 1000;

/** The signer of the listings' page tokens, read from the database once, when first needed. */
export function listingPageTokens(store: Store): () => Promise<PageTokens> {
  let pageTokens: Promise<PageTokens> | undefined;
  return () =>
    (pageTokens ??= serviceSecret(store.db, "page_tokens").then((secret) => new PageTokens(secret)));
}

/** Flaky or broken tests, most recent status change first. */
export function unhealthyTestsListing(
  store: Store,
  repository: Repository,
  status: Exclude<HealthStatus, "healthy">,
): Listing<TestCase, StatusChangeKey> {
  return {
    query: ["unhealthy", repository.id, status],
    count: (snapshot) => countUnhealthyTests(store.db, repository.id, status, snapshot),
    page: (snapshot, position, limit) =>
      unhealthyTestsPage(store.db, repository.id, status, snapshot, position, limit),
    keyOf: statusChangeKey,
    isKey: isStatusChangeKey,
  };
}

/** Quarantined tests, most recently quarantined first. */
export function quarantinedTestsListing(
  store: Store,
  repository: Repository,
): Listing<TestCase, QuarantineKey> {
  return {
    query: ["quarantined", repository.id],
    count: (snapshot) => countQuarantinedTests(store.db, repository.id, snapshot),
    page: (snapshot, position, limit) =>
      quarantinedTestsPage(store.db, repository.id, snapshot, position, limit),
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
  store: Store,
  repository: Repository,
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
    count: (snapshot) => countFailingTests(store.db, rangeAt(snapshot)),
    page: (snapshot, position, limit) =>
      failingTestsPage(store.db, store.dialect, rangeAt(snapshot), position, limit),
    keyOf: failureCountKey,
    isKey: isFailureCountKey,
  };
}
