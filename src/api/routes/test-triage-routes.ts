// One test of test health: its details, its quarantine setting and its linked ticket, decided by the use cases the
// test's page uses too (test-triage.ts).
import { fullTestRecords } from "../../test-health-use-cases/record-facts.ts";
import { linkTestTicket, setQuarantineSetting, testOf } from "../../test-health-use-cases/test-triage.ts";
import type { FastifyInstance } from "fastify";
import { type EdgeDependencies, testHealthDependencies } from "../../http/dependencies.ts";
import {
  GetTestDetailsRequest,
  LinkTicketRequest,
  SetQuarantineSettingRequest,
  TestResponse,
} from "../test-health-schemas.ts";
import { errorResponses } from "../openapi.ts";
import { testHealthRepository } from "../repo-access.ts";

/** A test's details, and what a person decides about it: its quarantine setting and its linked ticket. */
export function registerTestTriageRoutes(api: FastifyInstance, deps: EdgeDependencies): void {
  const health = testHealthDependencies(deps);

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
      const testCase = await testOf(deps.testHealth, repository, request.body.test_id);
      const [test] = await fullTestRecords(health, repository, [testCase]);
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
      const updated = await setQuarantineSetting(health, repository, testId, setting);
      const [test] = await fullTestRecords(health, repository, [updated]);
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
      const testCase = await linkTestTicket(health, repository, testId, ticketUrl);
      const [test] = await fullTestRecords(health, repository, [testCase]);
      return { test };
    },
  );
}
