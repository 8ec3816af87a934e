// docs/api.md#conventions, #errors under fuzzing: 10,000 malformed requests (wrong types, missing fields, huge strings, deep
// nesting, unicode, numbers out of range, invalid JSON, wrong content types) to every /v1 endpoint and to the
// webhook endpoint. None answers 5xx; every refusal is a Problem with a `code`; a refused request writes
// nothing, neither to the database nor to GitHub. Injected in process, without a socket, to stay fast.
import { createHmac } from "node:crypto";
import fc from "fast-check";
import Database from "better-sqlite3";
import { sql } from "kysely";
import inject from "light-my-request";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testWebhookSecret } from "../support/github-app.ts";
import { deliverWebhook } from "../support/webhooks.ts";
import { validBody } from "../support/valid-bodies.ts";
import { installationId, repoRef as repo, type Scenario, startScenario } from "../support/queue-scenario.ts";

const V1_REQUESTS = 8_500;
const WEBHOOK_REQUESTS = 1_500;

/** Every field some /v1 endpoint takes, with a valid value: endpoints ignore the fields they do not take. */

/** The dotted paths of a JSON value's fields, parents first: what a mutation may replace or remove. */
function pathsOf(value: unknown, prefix: string[] = []): string[][] {
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, child]) => [
    [...prefix, key],
    ...pathsOf(child, [...prefix, key]),
  ]);
}

/** A copy of `body` with the field at `path` replaced by `value`, or removed when `value` is undefined. */
function withField(body: unknown, path: string[], value: unknown): unknown {
  const copy = structuredClone(body) as Record<string, unknown>;
  let parent = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string, unknown>;
  const last = path.at(-1) as string;
  if (value === undefined) delete parent[last];
  else parent[last] = value;
  return copy;
}

function nested(depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let level = 0; level < depth; level++) value = level % 2 === 0 ? [value] : { a: value };
  return value;
}

const hugeString = fc.constantFrom("x".repeat(100_000), "é".repeat(50_000), "\u0000".repeat(10_000));
const malformedValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue() },
  { weight: 4, arbitrary: fc.string({ unit: "binary", maxLength: 64 }) },
  { weight: 4, arbitrary: fc.constantFrom(-1, 0, 1.5, -0, 2 ** 31, 2 ** 53 + 2, 1e308, -1e308, 256, 1e21) },
  {
    weight: 4,
    arbitrary: fc.constantFrom(null, true, [], {}, "", " ", "NaN", "1e400", "０１", "\u202e", "𝕞𝕒𝕚𝕟"),
  },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 1_000 }).map((depth) => nested(depth, "x")) },
  { weight: 1, arbitrary: hugeString },
);

/** A JSON body as sent: a valid body with one field wrong or missing, or something else altogether. */
function bodyText(valid: unknown): fc.Arbitrary<string> {
  const paths = pathsOf(valid);
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(fc.constantFrom(...paths), fc.option(malformedValue, { nil: undefined }))
        .map(([path, value]) => JSON.stringify(withField(valid, path, value))),
    },
    { weight: 2, arbitrary: fc.jsonValue().map((value) => JSON.stringify(value)) },
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 200 }) },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 1, max: 50 }).map((cut) => JSON.stringify(valid).slice(0, -cut)),
    },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 1_000, max: 100_000 })
        .map((depth) => "[".repeat(depth) + "]".repeat(depth)),
    },
  );
}

const contentType = fc.oneof(
  { weight: 8, arbitrary: fc.constant("application/json") },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "application/json; charset=utf-16",
      "application/jsonx",
      "",
    ),
  },
);

describe("malformed requests", () => {
  let s: Scenario;
  let observer: Database.Database;
  beforeAll(async () => {
    s = await startScenario();
    observer = new Database(s.store.databaseUrl.slice("file:".length), { readonly: true });
    s.repo.setPermission("alice", "write");
    s.repo.openPullRequest({ number: 1, title: "One", author: "alice", files: { "src/one.ts": "1\n" } });
    await s.api("createQueue", { repo, targetBranch: "main", requiredStatuses: ["ci"] });
    await s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number: 1 } });
    await s.settle();
    // The scheduler's timers (polls, mergeability re-checks) write on their own time: the commits counted here are
    // the requests' alone.
    await s.server.engine.scheduler.stop();
  });
  afterAll(async () => {
    observer.close();
    await s.close();
  });

  /**
   * How many commits other connections made to the database (SQLite's data_version, read on a connection of the
   * test's own: rolled-back transactions do not count), and how many calls changed something on GitHub.
   */
  const written = () => ({
    commits: observer.pragma("data_version", { simple: true }),
    githubWrites: s.fake.requests.filter((request) => request.method !== "GET").length,
  });
  /** Every table's rows but the bookkeeping of webhook deliveries (a delivery is recorded even when it changes nothing). */
  const rowsOfEveryTable = async () => {
    const rows: Record<string, unknown[]> = {};
    for (const { name } of await s.store.db.introspection.getTables()) {
      if (name !== "webhook_deliveries")
        rows[name] = (await sql`select * from ${sql.table(name)}`.execute(s.store.db)).rows;
    }
    return rows;
  };
  /** A refusal's body: a Problem whose status is the response's. */
  const expectProblem = (response: {
    statusCode: number;
    headers: Record<string, unknown>;
    payload: string;
  }) => {
    expect(response.headers["content-type"]).toMatch(/^application\/problem\+json(;|$)/);
    const problem = JSON.parse(response.payload) as { status: number; code: string };
    expect(problem).toMatchObject({ status: response.statusCode, code: expect.any(String) });
    return problem;
  };
  const send = (options: { method: "GET" | "POST"; url: string; type: string; body?: string }) =>
    inject(s.server.dispatch, {
      method: options.method,
      url: options.url,
      headers: {
        "x-api-token": s.token,
        ...(options.type === "" ? {} : { "content-type": options.type }),
      },
      ...(options.body === undefined ? {} : { payload: options.body }),
    });

  it(`answers ${V1_REQUESTS} malformed /v1 requests with a Problem, never a 5xx, and writes nothing`, async () => {
    const openApi = JSON.parse((await send({ method: "GET", url: "/v1/openapi.json", type: "" })).payload);
    type Operation = { requestBody?: { content: Record<string, { schema: { properties: object } }> } };
    const operations = Object.entries(openApi.paths as Record<string, Record<string, Operation>>).flatMap(
      ([path, methods]) =>
        Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
    );
    expect(operations.length).toBeGreaterThan(20);
    // Each endpoint's valid body holds the fields it reads, so that every mutation hits one of them.
    const posts = operations
      .filter(({ method }) => method === "post")
      .map(({ path, operation }) => {
        const fields = Object.keys(
          operation.requestBody?.content["application/json"]?.schema.properties ?? {},
        );
        return { path, body: Object.fromEntries(fields.map((field) => [field, validBody[field]])) };
      });
    const getPaths = operations.filter(({ method }) => method === "get").map(({ path }) => path);
    const request = fc.oneof(
      {
        weight: 9,
        arbitrary: fc.constantFrom(...posts).chain(({ path, body }) =>
          fc.record({
            method: fc.constant("POST" as const),
            url: fc.constant(path),
            type: contentType,
            body: bodyText(body),
          }),
        ),
      },
      {
        weight: 1,
        arbitrary: fc.record({
          method: fc.constant("GET" as const),
          url: fc
            .tuple(fc.constantFrom(...getPaths), fc.string({ unit: "binary", maxLength: 100 }))
            .map(
              ([path, query]) =>
                `${path}?${encodeURIComponent(query).replace(/%3D/g, "=").replace(/%26/g, "&")}`,
            ),
          type: fc.constant(""),
        }),
      },
    );

    // Authentication notes when a token was last used, once a minute at most: done before counting.
    await send({ method: "POST", url: "/v1/getQueue", type: "application/json", body: "{}" });
    let before = written();
    await fc.assert(
      fc.asyncProperty(request, async (sent) => {
        const response = await send(sent);
        expect(
          response.statusCode,
          `${sent.method} ${sent.url}: ${response.payload.slice(0, 500)}`,
        ).toBeLessThan(500);
        if (response.statusCode < 400) {
          // A request that happened to be valid did its work: the next ones are measured from here.
          await s.server.engine.settle();
          before = written();
          return;
        }
        expect(response.headers["content-type"]).toMatch(/^application\/problem\+json(;|$)/);
        const problem = JSON.parse(response.payload);
        expect(problem).toMatchObject({ status: response.statusCode, code: expect.any(String) });
        expect(written()).toEqual(before);
      }),
      { numRuns: V1_REQUESTS },
    );
  }, 120_000);

  it(`answers ${WEBHOOK_REQUESTS} malformed webhooks without a 5xx, and they change nothing`, async () => {
    const sha = "f".repeat(40);
    const envelope = {
      repository: { id: 1, name: "widgets", full_name: "acme/widgets", owner: { login: "acme" } },
      installation: { id: installationId },
      sender: { login: "alice", type: "User" },
    };
    // Valid, they concern nothing the service holds (a commit nothing tests, PR #99, a branch without a queue, a
    // comment without a command): whatever they become, nothing may change.
    const webhooks: Record<string, object> = {
      status: { id: 1, sha, context: "ci", state: "success", target_url: null, ...envelope },
      check_run: {
        action: "completed",
        check_run: {
          id: 2,
          name: "ci",
          head_sha: sha,
          status: "completed",
          conclusion: "success",
          html_url: "",
        },
        ...envelope,
      },
      check_suite: { action: "completed", check_suite: { id: 3, head_sha: sha }, ...envelope },
      pull_request: {
        action: "closed",
        number: 99,
        pull_request: { number: 99, merged: false, base: { ref: "main" }, head: { sha } },
        changes: { base: { ref: { from: "main" } } },
        ...envelope,
      },
      push: { ref: "refs/heads/elsewhere", before: sha, after: sha, ...envelope },
      issue_comment: {
        action: "created",
        issue: { number: 1, pull_request: { url: "" } },
        comment: { id: 4, body: "Thanks!", user: { login: "alice", type: "User" } },
        ...envelope,
      },
    };
    const actions = ["closed", "synchronize", "edited", "converted_to_draft", "created", "completed"];
    const webhook = fc
      .tuple(
        fc.constantFrom(...Object.keys(webhooks), "installation", "ping", "unknown_event"),
        fc.constantFrom(...Object.values(webhooks)),
        fc.constantFrom(...actions),
      )
      .chain(([name, payload, action]) =>
        fc.record({
          name: fc.constant(name),
          type: contentType,
          body: bodyText({ ...payload, action }),
          signed: fc.oneof(
            { weight: 9, arbitrary: fc.constant(true) },
            { weight: 1, arbitrary: fc.constant(false) },
          ),
          id: fc.uuid(),
        }),
      );
    const stateBefore = await rowsOfEveryTable();
    const githubWritesBefore = written().githubWrites;
    await fc.assert(
      fc.asyncProperty(webhook, async (sent) => {
        const signature = createHmac("sha256", sent.signed ? testWebhookSecret : "wrong").update(sent.body);
        const response = await inject(s.server.dispatch, {
          method: "POST",
          url: "/api/github/webhooks",
          headers: {
            ...(sent.type === "" ? {} : { "content-type": sent.type }),
            "x-github-event": sent.name,
            "x-github-delivery": sent.id,
            "x-hub-signature-256": `sha256=${signature.digest("hex")}`,
          },
          payload: sent.body,
        });
        expect(response.statusCode, `${sent.name}: ${response.payload.slice(0, 500)}`).toBeLessThan(500);
        expect(written().githubWrites).toBe(githubWritesBefore);
        if (response.statusCode >= 400) expectProblem(response);
      }),
      { numRuns: WEBHOOK_REQUESTS },
    );
    await s.server.engine.settle();
    expect(await rowsOfEveryTable()).toEqual(stateBefore);
  }, 120_000);

  it("refuses a signed webhook whose payload lacks a field its handler reads with 400 naming the field", async () => {
    const response = await deliverWebhook(s.server.url, "status", {
      id: 1,
      context: "ci",
      state: "success",
      repository: { name: "widgets", full_name: "acme/widgets" },
      installation: { id: installationId },
    });
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json(;|$)/);
    const problem = (await response.json()) as { code: string; detail: string };
    expect(problem.code).toBe("invalid_webhook_payload");
    expect(problem.detail).toContain("/sha");
  });

  it.each([
    {
      refusal: "a wrong signature",
      headers: { "x-hub-signature-256": "sha256=00" },
      status: 401,
      code: "webhook_signature_invalid",
    },
    {
      refusal: "no signature",
      headers: { "x-hub-signature-256": undefined },
      status: 400,
      code: "webhook_headers_missing",
    },
    {
      refusal: "no event name",
      headers: { "x-github-event": undefined },
      status: 400,
      code: "webhook_headers_missing",
    },
    { refusal: "a body that is not JSON", body: "{", status: 400, code: "invalid_json" },
    {
      refusal: "a payload that is not an object",
      body: "null",
      status: 400,
      code: "invalid_webhook_payload",
    },
    {
      // Octokit names the event `${name}.${action}`: an action that cannot become text threw there (a 500).
      refusal: "an action that is not text",
      headers: { "x-github-event": "an_event_nobody_handles" },
      body: JSON.stringify({ action: { toString: {} }, installation: { id: 1 } }),
      status: 400,
      code: "invalid_webhook_payload",
    },
    {
      refusal: "another content type",
      headers: { "content-type": "text/plain" },
      status: 415,
      code: "unsupported_media_type",
    },
    {
      refusal: "a body over 25 MiB",
      body: " ".repeat(26 * 1024 * 1024),
      status: 413,
      code: "payload_too_large",
    },
  ])(
    "refuses a webhook with $refusal with a $status Problem $code",
    async ({ headers = {}, body = "{}", status, code }) => {
      const signature = `sha256=${createHmac("sha256", testWebhookSecret).update(body).digest("hex")}`;
      const sent: Record<string, string | undefined> = {
        "content-type": "application/json",
        "x-github-event": "status",
        "x-github-delivery": "d-1",
        "x-hub-signature-256": signature,
        ...headers,
      };
      const response = await inject(s.server.dispatch, {
        method: "POST",
        url: "/api/github/webhooks",
        headers: Object.fromEntries(Object.entries(sent).filter(([, value]) => value !== undefined)),
        payload: body,
      });
      expect(response.statusCode).toBe(status);
      expect(expectProblem(response).code).toBe(code);
    },
  );
});
