import { createConfig, lintFromString } from "@redocly/openapi-core";
import { describe, expect, it } from "vitest";
import { useTestServer } from "../support/api-server.ts";

describe("GET /v1/openapi.json", () => {
  const fixture = useTestServer();

  it("describes every /v1 operation with the schemas that validate requests, without a token", async () => {
    const response = await fetch(`${fixture.server.url}/v1/openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as any;
    expect(document.openapi).toBe("3.1.0");
    expect(Object.keys(document.paths).sort()).toEqual(
      [
        "/v1/createQueue",
        "/v1/deleteQueue",
        "/v1/getQueue",
        "/v1/updateQueue",
        "/v1/submitPullRequest",
        "/v1/cancelPullRequest",
        "/v1/restartTestsOnPullRequest",
        "/v1/setImpactedTargets",
        "/v1/getSubmittedPullRequest",
        "/v1/listPullRequests",
        "/v1/listQueues",
        "/v1/getMergeQueueTestingDetails",
        "/v1/flaky-tests/upload",
        "/v1/flaky-tests/list-failing-tests",
        "/v1/flaky-tests/list-unhealthy-tests",
        "/v1/flaky-tests/list-quarantined-tests",
        "/v1/flaky-tests/get-test-details",
        "/v1/flaky-tests/set-quarantine-setting",
        "/v1/flaky-tests/link-ticket",
        "/v1/flaky-tests/get-auto-quarantine",
        "/v1/flaky-tests/set-auto-quarantine",
        "/v1/getMergeQueueMetrics",
      ].sort(),
    );
    const metrics = document.paths["/v1/getMergeQueueMetrics"].get;
    expect(metrics.parameters.map((p: any) => p.name)).toEqual(["repo", "repoHost"]);
    expect(Object.keys(metrics.responses[200].content)).toEqual(["text/plain; version=0.0.4; charset=utf-8"]);
    const createQueue = document.paths["/v1/createQueue"].post;
    const body = createQueue.requestBody.content["application/json"].schema;
    expect(body.required).toEqual(["repo", "targetBranch"]);
    expect(body.properties.concurrency).toMatchObject({ type: "integer", minimum: 1 });
    // Enums of a request take any case (docs/api.md#conventions), as the document says.
    expect(body.properties.mergeMethod.examples).toEqual(["merge_commit", "squash", "rebase"]);
    const mergeMethod = new RegExp(body.properties.mergeMethod.pattern);
    for (const value of ["squash", "SQUASH", "Merge_Commit"]) expect(value).toMatch(mergeMethod);
    expect("squashed").not.toMatch(mergeMethod);
    expect(Object.keys(createQueue.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "409"]));
    expect(document.components.securitySchemes.apiToken).toEqual({
      type: "apiKey",
      in: "header",
      name: "x-api-token",
    });
    expect(document.components.schemas.QueueRecord.properties.enqueuedPullRequests).toBeDefined();
  });

  it("names every operation as the contract does, and carries a license", async () => {
    const document = (await (await fetch(`${fixture.server.url}/v1/openapi.json`)).json()) as any;
    const operationIds = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.values(operations as Record<string, { operationId?: string }>).map(
        (o) => [path, o.operationId] as const,
      ),
    );
    // The merge queue's operations are named by their paths; the test-health ones in camelCase.
    for (const [path, operationId] of operationIds) {
      if (!path.startsWith("/v1/flaky-tests/")) expect(operationId).toBe(path.slice("/v1/".length));
    }
    expect(Object.fromEntries(operationIds.filter(([path]) => path.startsWith("/v1/flaky-tests/")))).toEqual({
      "/v1/flaky-tests/upload": "uploadTestResults",
      "/v1/flaky-tests/list-failing-tests": "listFailingTests",
      "/v1/flaky-tests/list-unhealthy-tests": "listUnhealthyTests",
      "/v1/flaky-tests/list-quarantined-tests": "listQuarantinedTests",
      "/v1/flaky-tests/get-test-details": "getTestDetails",
      "/v1/flaky-tests/set-quarantine-setting": "setQuarantineSetting",
      "/v1/flaky-tests/link-ticket": "linkTicket",
      "/v1/flaky-tests/get-auto-quarantine": "getAutoQuarantine",
      "/v1/flaky-tests/set-auto-quarantine": "setAutoQuarantine",
    });
    expect(document.info.license).toEqual({ name: "MIT", identifier: "MIT" });
  });

  it("passes Redocly's recommended rules without an error or a warning", async () => {
    const source = await (await fetch(`${fixture.server.url}/v1/openapi.json`)).text();
    // The document only refers to itself, so linting it fetches nothing.
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({ source, absoluteRef: "openapi.json", config });
    expect(
      problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`),
    ).toEqual([]);
  });
});
