// getMergeQueueTestingDetails (docs/api.md#records).
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { testRunView } from "../../presentation/queue-views.ts";
import { principalOf } from "../auth.ts";
import type { EdgeDependencies } from "../../http/dependencies.ts";
import { errorResponses } from "../openapi.ts";
import { notFound } from "../../http/problem.ts";
import { resolveQueue } from "../queue-access.ts";
import { TestingDetailsRequest, TestRunRecord } from "../schemas.ts";
import { pullRequestUrl } from "../../urls.ts";

export function registerTestRunRoutes(api: FastifyInstance, deps: EdgeDependencies): void {
  api.post<{ Body: TestingDetailsRequest }>(
    "/getMergeQueueTestingDetails",
    {
      schema: {
        operationId: "getMergeQueueTestingDetails",
        summary: "Read a test run: its branch, commit, PRs and CI results",
        body: TestingDetailsRequest,
        response: { 200: Type.Ref(TestRunRecord), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { repository, queue, state } = await resolveQueue(deps, principalOf(request), request.body);
      const { testRunId } = request.body;
      const record =
        testRunView(state, testRunId, (n) => pullRequestUrl(deps.config, repository, n)) ??
        (await deps.queueRecords.findTestRunRecord(queue.id, testRunId));
      if (record === null || record === undefined) {
        throw notFound("test_run_not_found", `the ${queue.branch} queue has no test run ${testRunId}`);
      }
      return record;
    },
  );
}
