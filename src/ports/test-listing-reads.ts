// What the test-health listings read from storage (src/test-health-use-cases/listing-definitions.ts walks them): how
// many rows a listing holds as of a snapshot, a page of them, and the secret their page tokens are signed with.
// src/store/test-listings.ts implements it.
import type {
  FailingTest,
  FailureCountKey,
  HealthStatus,
  Page,
  PagePosition,
  QuarantineKey,
  StatusChangeKey,
  TestCase,
} from "../test-health/index.ts";

/** The failures of a repository that list-failing-tests counts: in [from, to), received by `snapshot`. */
export interface FailureRange {
  repositoryId: string;
  from: number;
  to: number;
  snapshot: number;
}

export interface TestListingReads {
  countUnhealthyTests(
    repositoryId: string,
    status: Exclude<HealthStatus, "healthy">,
    snapshot: number,
  ): Promise<number>;
  unhealthyTestsPage(
    repositoryId: string,
    status: Exclude<HealthStatus, "healthy">,
    snapshot: number,
    position: PagePosition<StatusChangeKey>,
    limit: number,
  ): Promise<Page<TestCase>>;
  countQuarantinedTests(repositoryId: string, snapshot: number): Promise<number>;
  quarantinedTestsPage(
    repositoryId: string,
    snapshot: number,
    position: PagePosition<QuarantineKey>,
    limit: number,
  ): Promise<Page<TestCase>>;
  countFailingTests(range: FailureRange): Promise<number>;
  failingTestsPage(
    range: FailureRange,
    position: PagePosition<FailureCountKey>,
    limit: number,
  ): Promise<Page<FailingTest>>;
  /** The service's secret for signing page tokens (the same on every replica). */
  pageTokenSecret(): Promise<Buffer>;
}
