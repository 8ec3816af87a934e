// Test health's /v1 endpoints (under /flaky-tests/, docs/test-health.md#endpoints): uploads, listings and a test's
// triage.
import type { FastifyInstance } from "fastify";
import type { EdgeDependencies } from "../../http/dependencies.ts";
import { testHealthSchemas } from "../test-health-schemas.ts";
import { registerTestListingRoutes } from "./test-listing-routes.ts";
import { registerTestTriageRoutes } from "./test-triage-routes.ts";
import { registerTestUploadRoutes } from "./test-upload-routes.ts";

export function registerTestHealthRoutes(api: FastifyInstance, deps: EdgeDependencies): void {
  for (const schema of testHealthSchemas) api.addSchema(schema);
  registerTestUploadRoutes(api, deps);
  registerTestListingRoutes(api, deps);
  registerTestTriageRoutes(api, deps);
}
