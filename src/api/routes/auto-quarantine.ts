// A repository's auto-quarantine (on by default: docs/test-health.md#quarantine), read and set
// through two extension endpoints beside set-quarantine-setting.
import type { FastifyInstance } from "fastify";
import { setAutoQuarantine } from "../../test-health-use-cases/auto-quarantine-switch.ts";
import type { EdgeDependencies } from "../../http/dependencies.ts";
import {
  AutoQuarantineResponse,
  GetAutoQuarantineRequest,
  SetAutoQuarantineRequest,
  SetAutoQuarantineResponse,
} from "../test-health-schemas.ts";
import { errorResponses } from "../openapi.ts";
import { testHealthRepository } from "../repo-access.ts";

export function registerAutoQuarantineRoutes(api: FastifyInstance, deps: EdgeDependencies): void {
  api.post<{ Body: GetAutoQuarantineRequest }>(
    "/flaky-tests/get-auto-quarantine",
    {
      schema: {
        operationId: "getAutoQuarantine",
        summary: "Whether the repository quarantines its flaky tests automatically",
        body: GetAutoQuarantineRequest,
        response: { 200: AutoQuarantineResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const repository = await testHealthRepository(deps, request, request.body);
      const { autoQuarantine } = await deps.testHealth.testHealthSettings(repository.id);
      return { auto_quarantine: autoQuarantine };
    },
  );

  api.post<{ Body: SetAutoQuarantineRequest }>(
    "/flaky-tests/set-auto-quarantine",
    {
      schema: {
        operationId: "setAutoQuarantine",
        summary: "Turn automatic quarantine of flaky tests on or off; their quarantine follows at once",
        body: SetAutoQuarantineRequest,
        response: { 200: SetAutoQuarantineResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const repository = await testHealthRepository(deps, request, request.body, { record: true });
      const change = await setAutoQuarantine(
        deps.testHealth,
        repository.id,
        request.body.enabled,
        deps.clock(),
      );
      return {
        auto_quarantine: change.autoQuarantine,
        tests_quarantined: change.quarantined,
        tests_released: change.released,
      };
    },
  );
}
