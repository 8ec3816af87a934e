// Every answer the service gives is one the OpenAPI document describes: each operation is sent a valid request (on
// a queue with a PR in test and a test uploaded, so that it succeeds), an invalid one, one without a token, one of
// the wrong media type, one with the wrong method and one over 20 MiB, and a command is sent while GitHub is down;
// each answer's status, media type and body are checked against the document with Ajv (JSON Schema 2020-12, the
// dialect of OpenAPI 3.1).
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testCaseId } from "../../src/test-health/index.ts";
import { repoRef as repo, type Scenario, startScenario } from "../support/queue-scenario.ts";
import { validBody } from "../support/valid-bodies.ts";

interface Operation {
  requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> };
  responses: Record<string, { content?: Record<string, unknown> }>;
}
type Document = { paths: Record<string, Record<string, Operation>> };

const pointer = (...parts: string[]) =>
  parts.map((part) => part.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");

describe("the OpenAPI document describes every answer", () => {
  let s: Scenario;
  let document: Document;
  let ajv: InstanceType<typeof Ajv2020>;
  const mismatches: string[] = [];
  let checked = 0;
  /** The operations that gave a 2xx answer: the success bodies are checked too, not only the refusals. */
  const succeeded = new Set<string>();
  /** A valid request's fields that must name what exists for it to succeed, by operation. */
  let existing: Record<string, () => Promise<Record<string, unknown>>>;

  beforeAll(async () => {
    s = await startScenario();
    s.repo.setPermission("alice", "write");
    await s.api("createQueue", { repo, targetBranch: "main", requiredStatuses: ["ci"] });
    await s.api("createQueue", { repo, targetBranch: "release/1" });
    const one = s.repo.openPullRequest({
      number: 1,
      title: "One",
      author: "alice",
      files: { "src/1.ts": "1\n" },
    });
    s.repo.openPullRequest({ number: 2, title: "Two", author: "alice", files: { "src/2.ts": "2\n" } });
    await s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number: 1 } });
    await s.settle();
    const uploadFields = ["repo", "org_url_slug", "commit_sha", "branch", "junit_xml"];
    const uploaded = await s.api(
      "flaky-tests/upload",
      Object.fromEntries(uploadFields.map((field) => [field, validBody[field]])),
    );
    expect(uploaded.status).toBe(200);
    const test_id = testCaseId(repo, { classname: "c", parent: "s", name: "t" });
    existing = {
      "/v1/createQueue": async () => ({ targetBranch: "next" }),
      "/v1/deleteQueue": async () => ({ targetBranch: "release/1" }),
      "/v1/submitPullRequest": async () => ({ pr: { number: 2 } }),
      "/v1/cancelPullRequest": async () => ({ pr: { number: 2 } }),
      "/v1/setImpactedTargets": async () => ({ pr: { number: 1, sha: one.headSha } }),
      "/v1/listPullRequests": async () => ({ state: "testing" }),
      "/v1/getMergeQueueTestingDetails": async () => {
        await s.settle(); // the restart above gave PR 1 a new run
        const pr = await s.api("getSubmittedPullRequest", { repo, targetBranch: "main", pr: { number: 1 } });
        return { testRunId: pr.body.testRunId };
      },
      "/v1/flaky-tests/get-test-details": async () => ({ test_id }),
      "/v1/flaky-tests/set-quarantine-setting": async () => ({ test_id }),
      "/v1/flaky-tests/link-ticket": async () => ({ test_id }),
    };
    document = (await (await fetch(`${s.server.url}/v1/openapi.json`)).json()) as Document;
    ajv = new Ajv2020({ strict: false, allErrors: true });
    (addFormats as unknown as (ajv: unknown) => void)(ajv);
    ajv.addSchema({ ...document, $id: "https://switchyard.example/openapi.json" });
  });
  afterAll(async () => {
    await s.close();
  });

  /** Checks one answer of `method path` against the document; notes what does not match. */
  async function check(path: string, method: string, what: string, response: Response) {
    checked++;
    const where = `${method.toUpperCase()} ${path} (${what}) answered ${response.status}`;
    const operation = document.paths[path]?.[method];
    if (response.ok) succeeded.add(path);
    const described = operation?.responses[String(response.status)];
    if (described === undefined) return void mismatches.push(`${where}: status not documented`);
    const type = (response.headers.get("content-type") ?? "").split(";")[0]?.trim() ?? "";
    // A documented media type may carry parameters (the Prometheus format's version).
    const documentedType = Object.keys(described.content ?? {}).find(
      (key) => key.split(";")[0]?.trim() === type,
    );
    if (documentedType === undefined) {
      return void mismatches.push(
        `${where}: ${type} not documented (${Object.keys(described.content ?? {})})`,
      );
    }
    const text = await response.text();
    const body: unknown = type.endsWith("json") ? JSON.parse(text) : text;
    const ref = `https://switchyard.example/openapi.json#/${pointer("paths", path, method, "responses", String(response.status), "content", documentedType, "schema")}`;
    const validate = ajv.getSchema(ref);
    if (validate === undefined) return void mismatches.push(`${where}: no schema at ${ref}`);
    if (!validate(body))
      mismatches.push(`${where}: ${ajv.errorsText(validate.errors)} in ${text.slice(0, 300)}`);
  }

  const send = (
    path: string,
    method: string,
    init: { token?: boolean; type?: string; body?: string | Buffer },
  ) =>
    fetch(`${s.server.url}${path}`, {
      method,
      headers: {
        ...(init.token === false ? {} : { "x-api-token": s.token }),
        ...(init.type === undefined ? {} : { "content-type": init.type }),
      },
      ...(init.body === undefined ? {} : { body: init.body }),
    });

  it("for every operation: valid, invalid, unauthenticated, wrong media type and oversized requests", async () => {
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
    );
    expect(operations.length).toBeGreaterThan(20);
    for (const { path, method, operation } of operations) {
      if (method === "get") {
        await check(path, method, "valid", await send(path, "GET", {}));
        await check(path, method, "unauthenticated", await send(path, "GET", { token: false }));
        await check(
          path,
          method,
          "invalid",
          await send(`${path}?repo=nonsense&repoHost=github.com`, "GET", {}),
        );
        continue;
      }
      const fields = Object.keys(operation.requestBody?.content["application/json"]?.schema.properties ?? {});
      const valid = JSON.stringify({
        ...Object.fromEntries(fields.map((field) => [field, validBody[field]])),
        ...(await existing[path]?.()),
      });
      const json = "application/json";
      await check(path, method, "valid", await send(path, "POST", { type: json, body: valid }));
      await check(path, method, "invalid", await send(path, "POST", { type: json, body: '{"repo": 7}' }));
      await check(path, method, "not JSON", await send(path, "POST", { type: json, body: "{" }));
      await check(
        path,
        method,
        "unauthenticated",
        await send(path, "POST", { type: json, body: valid, token: false }),
      );
      await check(path, method, "text/plain", await send(path, "POST", { type: "text/plain", body: valid }));
      await check(
        path,
        method,
        "charset",
        await send(path, "POST", { type: `${json}; charset=utf-8`, body: valid }),
      );
    }
    // Over 20 MiB, on an operation that reads a large body and on one that does not.
    const oversized = Buffer.alloc(21 * 1024 * 1024, " ");
    for (const path of ["/v1/flaky-tests/upload", "/v1/getQueue"]) {
      await check(
        path,
        "post",
        "oversized",
        await send(path, "POST", { type: "application/json", body: oversized }),
      );
    }
    // A command that must act on GitHub, while GitHub is down.
    s.github.down = true;
    const body = JSON.stringify({ repo, targetBranch: "main", pr: { number: 3 } });
    s.repo.openPullRequest({ number: 3, title: "Three", author: "alice", files: { "src/3.ts": "3\n" } });
    const outage = await send("/v1/submitPullRequest", "POST", { type: "application/json", body });
    expect([502, 503]).toContain(outage.status);
    await check("/v1/submitPullRequest", "post", "GitHub down", outage);
    s.github.down = false;

    expect(checked).toBeGreaterThan(120);
    expect(mismatches).toEqual([]);
    expect([...succeeded].sort()).toEqual(operations.map(({ path }) => path).sort());
  }, 240_000);

  it("answers the wrong method with a problem naming the right one", async () => {
    const response = await send("/v1/getQueue", "GET", {});
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  });
});
