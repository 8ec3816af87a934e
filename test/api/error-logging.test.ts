// What a 5xx answer leaves in the log: an unexpected failure its stack, for the maintainer to find the bug; a state
// the service names its code and detail, a warning when it passes (GitHub down), an error when someone must act.
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTestServer, tokenFor, type TestServer } from "../support/api-server.ts";
import { createTestStore, type TestStore } from "../support/database.ts";
import { logLines } from "../support/log-lines.ts";
import { useNockedGitHub } from "../support/nock-github.ts";

const repo = { host: "github.com", owner: "acme", name: "widgets" };

describe("the log of an API request answered 5xx", () => {
  useNockedGitHub({ strict: false });
  let store: TestStore;
  let server: TestServer;
  let token: string;
  let lines: Record<string, any>[];

  beforeEach(async () => {
    const log = logLines();
    lines = log.lines;
    store = await createTestStore("sqlite");
    server = await startTestServer(store, { log: log.logger });
    token = await tokenFor(store, "acme");
  });
  afterEach(async () => {
    await server.close();
    await store.destroy();
  });

  /** The one line the request logged about its failure. */
  const theFailure = () => {
    const failures = lines.filter((line) => String(line.msg).startsWith("API request failed"));
    expect(failures).toHaveLength(1);
    return failures[0]!;
  };

  it("warns with the code and what failed, without a stack, when GitHub is down", async () => {
    nock("https://api.github.com")
      .get("/repos/acme/widgets/installation")
      .times(10)
      .reply(503, { message: "Service Unavailable" });
    const response = await server.post("createQueue", { repo, targetBranch: "main" }, token);
    expect(response.status).toBe(502);
    const body = (await response.json()) as { code: string; detail: string };
    expect(body.code).toBe("github_unavailable");
    const line = theFailure();
    expect(line).toMatchObject({
      level: 40,
      status: 502,
      code: "github_unavailable",
      url: "/v1/createQueue",
    });
    expect(line.msg).toContain("/repos/acme/widgets/installation");
    expect(body.detail).toContain(`(request ${line.requestId})`);
    expect(JSON.stringify(line)).not.toMatch(/stack| {4}at /);
  });

  it("logs a refusal GitHub will repeat as an error, in GitHub's words, without a stack", async () => {
    nock("https://api.github.com").get("/repos/acme/widgets/installation").reply(200, { id: 100 });
    nock("https://api.github.com")
      .post("/app/installations/100/access_tokens")
      .reply(201, { token: "ghs_test", expires_at: "2099-01-01T00:00:00Z" });
    nock("https://api.github.com")
      .get(`/repos/acme/widgets/git/ref/${encodeURIComponent("heads/main")}`)
      .reply(403, { message: "Resource not accessible by integration" });
    const response = await server.post("createQueue", { repo, targetBranch: "main" }, token);
    expect(response.status).toBe(502);
    expect(((await response.json()) as { code: string }).code).toBe("github_refused");
    const line = theFailure();
    expect(line).toMatchObject({ level: 50, status: 502, code: "github_refused" });
    expect(line.msg).toContain("Resource not accessible by integration");
    expect(line.err).toBeUndefined();
  });

  it("logs an unexpected failure as an error with its stack, under the request id the answer names", async () => {
    await store.db.schema.dropTable("queues").execute();
    nock("https://api.github.com").get("/repos/acme/widgets/installation").reply(200, { id: 1 });
    const response = await server.post("getQueue", { repo, targetBranch: "main" }, token);
    expect(response.status).toBe(500);
    const body = (await response.json()) as { code: string; detail: string };
    expect(body.code).toBe("internal_error");
    const line = theFailure();
    expect(line).toMatchObject({ level: 50, msg: "API request failed", url: "/v1/getQueue" });
    expect(line.err.stack).toMatch(/queues/);
    expect(body.detail).toContain(`(request ${line.requestId})`);
  });
});
