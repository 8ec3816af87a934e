// Test health's listings, a page at a time: the tests failing in a time range, the unhealthy ones and the
// quarantined ones.
import {
  CLASSIFICATION_WINDOW_MS,
  type HealthStatus,
  type QuarantineKey,
  type StatusChangeKey,
  type TestCase,
} from "../../test-health/index.ts";
import { readPage } from "../../test-health-use-cases/page-tokens.ts";
import {
  failingTestsListing,
  listingPageTokens,
  quarantinedTestsListing,
  unhealthyTestsListing,
} from "../../test-health-use-cases/listing-definitions.ts";
import { quarantinedTestRecord, unhealthyTestRecord } from "../../presentation/test-records.ts";
import { fullTestRecords, recordContext, testStatistics } from "../../test-health-use-cases/record-facts.ts";
import type { FastifyInstance } from "fastify";
import { type EdgeDependencies, testHealthDependencies } from "../../http/dependencies.ts";
import {
  ListFailingTestsRequest,
  ListFailingTestsResponse,
  ListQuarantinedTestsRequest,
  ListQuarantinedTestsResponse,
  ListUnhealthyTestsRequest,
  ListUnhealthyTestsResponse,
} from "../test-health-schemas.ts";
import { errorResponses } from "../openapi.ts";
import { invalidRequest, Problem } from "../../http/problem.ts";
import { testHealthRepository } from "../repo-access.ts";

/** What every listing reads through: the tests, their records' context, and the page tokens. */
function listingReads(deps: EdgeDependencies) {
  const listings = deps.testListings;
  return {
    deps,
    config: deps.config,
    health: testHealthDependencies(deps),
    listings,
    tokens: listingPageTokens(listings),
  };
}

type ListingReads = ReturnType<typeof listingReads>;

/** The tests that failed in a time range of at most a week. */
function registerFailingTestsRoute(
  api: FastifyInstance,
  { deps, config, health, listings, tokens }: ListingReads,
): void {
  api.post<{ Body: ListFailingTestsRequest }>(
    "/flaky-tests/list-failing-tests",
    {
      schema: {
        operationId: "listFailingTests",
        summary: "Tests with failures in a time range of at most 7 days, most failures first",
        body: ListFailingTestsRequest,
        response: { 200: ListFailingTestsResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const body = request.body;
      const start = Date.parse(body.start_time);
      const end = Date.parse(body.end_time);
      if (end < start) {
        throw invalidRequest("the request is invalid: end_time is before start_time", [
          { path: "end_time", message: "must not be before start_time" },
        ]);
      }
      if (end - start > CLASSIFICATION_WINDOW_MS) {
        throw new Problem(
          400,
          "time_range_too_long",
          "start_time and end_time must be within 7 days of each other; list longer periods a week at a time",
        );
      }
      const repository = await testHealthRepository(deps, request, body);
      const window = { query: [start, end], range: () => ({ from: start, to: end }) };
      const { rows, page } = await readPage(
        await tokens(),
        body.page_query,
        failingTestsListing(listings, repository, window, config.testResultsRetentionDays),
        deps.clock(),
      );
      return {
        tests: await fullTestRecords(
          health,
          repository,
          rows.map((row) => row.testCase),
        ),
        page,
      };
    },
  );
}

/** The unhealthy tests (flaky or broken), and the quarantined ones. */
function registerTestStatusRoutes(
  api: FastifyInstance,
  { deps, health, listings, tokens }: ListingReads,
): void {
  api.post<{ Body: ListUnhealthyTestsRequest }>(
    "/flaky-tests/list-unhealthy-tests",
    {
      schema: {
        operationId: "listUnhealthyTests",
        summary: "Flaky or broken tests, most recent status change first",
        body: ListUnhealthyTestsRequest,
        response: { 200: ListUnhealthyTestsResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const body = request.body;
      const status: Exclude<HealthStatus, "healthy"> = body.status;
      const repository = await testHealthRepository(deps, request, body);
      const { rows, page } = await readPage<TestCase, StatusChangeKey>(
        await tokens(),
        body.page_query,
        unhealthyTestsListing(listings, repository, status),
        deps.clock(),
      );
      const [context, statistics] = await Promise.all([
        recordContext(health, repository),
        testStatistics(deps.testHealth, rows, deps.clock(), { full: false }),
      ]);
      return {
        tests: rows.map((testCase) => unhealthyTestRecord(context, testCase, statistics.get(testCase.key))),
        page,
      };
    },
  );

  api.post<{ Body: ListQuarantinedTestsRequest }>(
    "/flaky-tests/list-quarantined-tests",
    {
      schema: {
        operationId: "listQuarantinedTests",
        summary: "Quarantined tests, most recently quarantined first",
        body: ListQuarantinedTestsRequest,
        response: { 200: ListQuarantinedTestsResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const body = request.body;
      const repository = await testHealthRepository(deps, request, body);
      const { rows, page } = await readPage<TestCase, QuarantineKey>(
        await tokens(),
        body.page_query,
        quarantinedTestsListing(listings, repository),
        deps.clock(),
      );
      const context = await recordContext(health, repository);
      return { quarantined_tests: rows.map((testCase) => quarantinedTestRecord(context, testCase)), page };
    },
  );
}

/** The three listings of a repository's tests: failing in a time range, unhealthy, quarantined. */
export function registerTestListingRoutes(api: FastifyInstance, deps: EdgeDependencies): void {
  const reads = listingReads(deps);
  registerFailingTestsRoute(api, reads);
  registerTestStatusRoutes(api, reads);
}
