// Test health (docs/test-health.md#endpoints): JUnit uploads, the four listings, quarantine settings and linked tickets.
import { randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import {
  CLASSIFICATION_WINDOW_MS,
  type HealthStatus,
  type QuarantineKey,
  type StatusChangeKey,
  type TestCase,
} from "../../test-health/index.ts";
import { ingestUpload } from "../../test-health-use-cases/ingestion.ts";
import { reportRunEvidence } from "../../test-health-use-cases/run-evidence.ts";
import { queuesWithRunAt } from "../../store/queue-locations.ts";
import {
  IdempotencyKeyReused,
  type StreamedPart,
  uploadRequestHash,
} from "../../test-health-use-cases/upload-receipts.ts";
import { JunitParseError } from "../../test-reports/parsed-report.ts";
import { stableBranches } from "../../test-health-use-cases/checkout-facts.ts";
import type { ApiDependencies } from "../../http/dependencies.ts";
import {
  flakyTestSchemas,
  GetTestDetailsRequest,
  LinkTicketRequest,
  ListFailingTestsRequest,
  ListFailingTestsResponse,
  ListQuarantinedTestsRequest,
  ListQuarantinedTestsResponse,
  ListUnhealthyTestsRequest,
  ListUnhealthyTestsResponse,
  SetQuarantineSettingRequest,
  TestResponse,
  UploadRequest,
  UploadResponse,
} from "../flaky-tests-schemas.ts";
import { errorResponses } from "../openapi.ts";
import { readPage } from "../../test-health-use-cases/page-tokens.ts";
import { invalidRequest, Problem } from "../../http/problem.ts";
import { streamedStrings } from "../../http/streamed-json-body.ts";
import { testHealthRepository } from "../repo-access.ts";
import {
  failingTestsListing,
  listingPageTokens,
  quarantinedTestsListing,
  unhealthyTestsListing,
} from "../../test-health-use-cases/listing-definitions.ts";
import { quarantinedTestRecord, unhealthyTestRecord } from "../../presentation/test-records.ts";
import { fullTestRecords, recordContext, testStatistics } from "../../test-health-use-cases/record-facts.ts";
import { linkTestTicket, setQuarantineSetting, testOf } from "../../test-health-use-cases/test-triage.ts";
import { testListingReads } from "../../store/test-listings.ts";

const DAY_MS = 24 * 3600 * 1000;
/** A client clock may run ahead of ours, but not by days: such a time would count as recent for weeks. */
const MAX_CLOCK_AHEAD_MS = DAY_MS;

export function registerFlakyTestRoutes(api: FastifyInstance, deps: ApiDependencies): void {
  for (const schema of flakyTestSchemas) api.addSchema(schema);
  const { store, config } = deps;
  const listings = testListingReads(store);
  const tokens = listingPageTokens(listings);

  api.post<{ Body: UploadRequest }>(
    "/flaky-tests/upload",
    {
      schema: {
        operationId: "uploadTestResults",
        summary: "Upload JUnit XML reports of a test run",
        description:
          "An `Idempotency-Key` header (1 to 255 visible ASCII characters) makes the upload safe to retry: a repeat " +
          "with the same key and body is answered the first answer and stores nothing; the same key with another " +
          "body is 422 `idempotency_key_reused`. Without the header, an upload identical to an earlier one (same " +
          "repository, commit, branch, job, run and reports, byte for byte) is recognised the same way.",
        body: UploadRequest,
        response: { 200: UploadResponse, ...errorResponses(400, 401, 403, 404, 413, 422) },
      },
      // The reports are read as they arrive into a temporary file, then from it: never whole in memory.
      config: { streamedStrings: "junit_xml" },
    },
    async (request) => {
      const body = request.body;
      const documents = streamedStrings(request);
      const now = deps.clock();
      const prNumber =
        body.pr_number === undefined || body.pr_number === null || body.pr_number === ""
          ? null
          : Number(body.pr_number);
      if (prNumber !== null && prNumber > 2_147_483_647) {
        throw invalidRequest("the request is invalid: pr_number is too large", [
          { path: "pr_number", message: "must be <= 2147483647" },
        ]);
      }
      const startedAt = body.started_at === undefined ? null : Date.parse(body.started_at);
      if (startedAt !== null && startedAt > now + MAX_CLOCK_AHEAD_MS) {
        throw invalidRequest("the request is invalid: started_at is more than a day in the future", [
          { path: "started_at", message: "must not be more than a day in the future" },
        ]);
      }
      const idempotencyKey = idempotencyKeyOf(request);
      const repository = await testHealthRepository(deps, request, body, { record: true });
      const defaultBranch = body.default_branch ?? undefined;
      const branches = await stableBranches(store, deps.repositoryFacts, repository, defaultBranch);
      const checkout = { defaultBranch, codeowners: body.codeowners ?? undefined };
      try {
        const outcome = await ingestUpload(store, {
          repository,
          id: randomUUID(),
          commitSha: body.commit_sha.toLowerCase(),
          branch: body.branch,
          prNumber,
          jobName: body.job_name || null,
          variant: body.variant ?? "",
          runUrl: body.run_url || null,
          repoRoot: body.repo_root || null,
          startedAt,
          documents,
          stableBranches: branches,
          checkout,
          receipt: uploadReceipt(
            idempotencyKey,
            await uploadRequestHash(uploadRequestParts(body, documents, prNumber, startedAt)),
          ),
          now,
        });
        // A test branch's upload is the queue's flake evidence: a repeat brings it again, harmlessly.
        await reportRunEvidence(
          {
            queuesWithRunAt: (repositoryId, sha) => queuesWithRunAt(store.db, repositoryId, sha),
            dispatch: (queueId, events) => deps.engine.dispatch(queueId, events),
          },
          repository.id,
          body.commit_sha.toLowerCase(),
          outcome.failingTestHealth ?? [],
        );
        return {
          upload_id: outcome.uploadId,
          test_results: outcome.testResults,
          failures: outcome.failures,
          quarantined_failures: outcome.quarantinedFailures,
          unquarantined_failures: outcome.unquarantinedFailures.map((failure) => ({
            test_id: failure.testId,
            name: failure.name,
            classname: failure.classname,
            file_path: failure.filePath,
          })),
          all_failures_quarantined: outcome.allFailuresQuarantined,
        };
      } catch (error) {
        if (error instanceof IdempotencyKeyReused) {
          throw new Problem(
            422,
            "idempotency_key_reused",
            `the Idempotency-Key ${error.idempotencyKey} was sent before with another upload; each upload needs a key of its own`,
          );
        }
        if (!(error instanceof JunitParseError)) throw error;
        const where = `line ${error.line}, column ${error.column}: ${error.reason}`;
        throw new Problem(
          400,
          "invalid_junit",
          `junit_xml[${error.documentIndex}] is not a valid JUnit report (${where}); nothing of this upload was stored`,
          [{ path: `junit_xml.${error.documentIndex}`, message: where }],
        );
      }
    },
  );

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
          deps,
          repository,
          rows.map((row) => row.testCase),
        ),
        page,
      };
    },
  );

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
        recordContext(deps, repository),
        testStatistics(store, rows, deps.clock(), { full: false }),
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
      const context = await recordContext(deps, repository);
      return { quarantined_tests: rows.map((testCase) => quarantinedTestRecord(context, testCase)), page };
    },
  );

  api.post<{ Body: GetTestDetailsRequest }>(
    "/flaky-tests/get-test-details",
    {
      schema: {
        operationId: "getTestDetails",
        summary: "One test's full record",
        body: GetTestDetailsRequest,
        response: { 200: TestResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const repository = await testHealthRepository(deps, request, request.body);
      const testCase = await testOf(store, repository, request.body.test_id);
      const [test] = await fullTestRecords(deps, repository, [testCase]);
      return { test };
    },
  );

  api.post<{ Body: SetQuarantineSettingRequest }>(
    "/flaky-tests/set-quarantine-setting",
    {
      schema: {
        operationId: "setQuarantineSetting",
        summary: "Quarantine a test always, never, or while it is flaky (auto)",
        body: SetQuarantineSettingRequest,
        response: { 200: TestResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { test_id: testId, setting } = request.body;
      const repository = await testHealthRepository(deps, request, request.body);
      const updated = await setQuarantineSetting(deps, repository, testId, setting);
      const [test] = await fullTestRecords(deps, repository, [updated]);
      return { test };
    },
  );

  api.post<{ Body: LinkTicketRequest }>(
    "/flaky-tests/link-ticket",
    {
      schema: {
        operationId: "linkTicket",
        summary: "Link a ticket to a test (replacing the one it had), or unlink it with a null ticket_url",
        body: LinkTicketRequest,
        response: { 200: TestResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { test_id: testId, ticket_url: ticketUrl } = request.body;
      const repository = await testHealthRepository(deps, request, request.body);
      const testCase = await linkTestTicket(deps, repository, testId, ticketUrl);
      const [test] = await fullTestRecords(deps, repository, [testCase]);
      return { test };
    },
  );
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** The upload's `Idempotency-Key` header, if it sent one; 400 when it is not a key. */
function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const key = request.headers["idempotency-key"];
  if (key === undefined) return undefined;
  if (typeof key !== "string" || !IDEMPOTENCY_KEY.test(key)) {
    throw invalidRequest("the request is invalid: the Idempotency-Key header is not a key", [
      { path: "Idempotency-Key", message: "must be 1 to 255 visible ASCII characters" },
    ]);
  }
  return key;
}

/** What an upload asks for, each field as it is stored: a retry that asks for the same is the same upload. */
/**
 * The receipt an upload leaves. Without an Idempotency-Key, the request itself is the key: the same reports sent
 * again for the same commit, branch, job and run (a client retrying after a lost answer, without a key) are
 * recognised and stored once. Reports differ from one run to the next (times, timestamps), so a real new run is
 * never taken for a repeat.
 */
function uploadReceipt(idempotencyKey: string | undefined, requestHash: string) {
  return { idempotencyKey: idempotencyKey ?? `sha256:${requestHash}`, requestHash };
}

function uploadRequestParts(
  body: UploadRequest,
  documents: readonly StreamedPart[],
  prNumber: number | null,
  startedAt: number | null,
): (string | number | null | undefined | StreamedPart)[] {
  const { repo } = body;
  return [
    `${repo.host}/${repo.owner}/${repo.name}`.toLowerCase(),
    body.commit_sha.toLowerCase(),
    body.branch,
    prNumber,
    body.job_name || null,
    body.variant ?? "",
    body.run_url || null,
    body.repo_root || null,
    startedAt,
    body.default_branch,
    body.codeowners,
    documents.length,
    ...documents,
  ];
}
