// Linking a ticket to a test (POST /v1/flaky-tests/link-ticket, docs/test-health.md#records), and every record
// showing it.
import { beforeEach, describe, expect, it } from "vitest";
import type { TestServer } from "../support/api-server.ts";
import { testDialects } from "../support/database.ts";
import {
  type CaseSpec,
  junitReport,
  TEST_HEALTH_START,
  useTestHealthServer,
  widgets as repo,
  widgetsTarget as target,
  widgetsTestId,
} from "../support/test-health.ts";

const jira = "https://acme.atlassian.net/browse/WID-42";

describe.each(testDialects)("linked tickets on %s", (dialect) => {
  let server: TestServer;
  let token: string;
  let now: number;

  const fixture = useTestHealthServer(dialect, () => now);
  beforeEach(() => {
    now = TEST_HEALTH_START;
    ({ server, token } = fixture);
  });

  const post = async (path: string, body: unknown, as = token) => {
    const response = await server.post(`flaky-tests/${path}`, body, as);
    return {
      status: response.status,
      type: response.headers.get("content-type"),
      body: (await response.json()) as any,
    };
  };
  const link = (name: string, ticketUrl: unknown) =>
    post("link-ticket", { ...target, test_id: widgetsTestId(name), ticket_url: ticketUrl });
  /** Two tests that failed and passed on one commit: flaky, so every listing holds them. */
  const flakyTests = async () => {
    const upload = (outcome: CaseSpec["outcome"]) =>
      post("upload", {
        ...target,
        commit_sha: "a".repeat(40),
        branch: "main",
        junit_xml: [
          junitReport([
            { name: "flips", outcome },
            { name: "wobbles", outcome },
          ]),
        ],
      });
    expect((await upload("failed")).status).toBe(200);
    expect((await upload("passed")).status).toBe(200);
  };
  /** The ticket of each test, as each record-producing endpoint shows it. */
  const ticketsShown = async () => {
    const listed = async (path: string, extra: Record<string, unknown>) => {
      const { body } = await post(path, { ...target, ...extra, page_query: {} });
      return Object.fromEntries(body.tests.map((test: any) => [test.name, test.ticket]));
    };
    const day = 24 * 3600 * 1000;
    const details = async (name: string) =>
      (await post("get-test-details", { ...target, test_id: widgetsTestId(name) })).body.test.ticket;
    return {
      details: { flips: await details("flips"), wobbles: await details("wobbles") },
      failing: await listed("list-failing-tests", {
        start_time: new Date(now - day).toISOString(),
        end_time: new Date(now + 1).toISOString(),
      }),
      unhealthy: await listed("list-unhealthy-tests", { status: "FLAKY" }),
    };
  };

  it("links a ticket, shows it in every record of the test, replaces it, and unlinks it with null", async () => {
    await flakyTests();
    const linked = await link("flips", jira);
    expect(linked.status).toBe(200);
    expect(linked.body.test).toMatchObject({
      id: widgetsTestId("flips"),
      name: "flips",
      ticket: { html_url: jira },
      status: { value: "flaky" },
      failure_rate_last_7d: 0.5,
    });
    const shown = { flips: { html_url: jira }, wobbles: null };
    expect(await ticketsShown()).toEqual({ details: shown, failing: shown, unhealthy: shown });

    const other = "http://tracker.internal:8080/issues/7?view=full#history";
    expect((await link("flips", other)).body.test.ticket).toEqual({ html_url: other });
    expect((await link("wobbles", jira)).body.test.ticket).toEqual({ html_url: jira });
    const both = { flips: { html_url: other }, wobbles: { html_url: jira } };
    expect(await ticketsShown()).toEqual({ details: both, failing: both, unhealthy: both });

    const unlinked = await link("flips", null);
    expect(unlinked.status).toBe(200);
    expect(unlinked.body.test.ticket).toBeNull();
    expect((await link("flips", null)).body.test.ticket).toBeNull();
    const one = { flips: null, wobbles: { html_url: jira } };
    expect(await ticketsShown()).toEqual({ details: one, failing: one, unhealthy: one });
  });

  it("keeps the ticket through a new quarantine setting", async () => {
    await flakyTests();
    await link("flips", jira);
    const { body } = await post("set-quarantine-setting", {
      ...target,
      test_id: widgetsTestId("flips"),
      setting: "never",
    });
    expect(body.test).toMatchObject({ quarantine_setting: "never", ticket: { html_url: jira } });
  });

  it("refuses a ticket_url that is not an absolute http(s) URL of at most 2048 characters without credentials", async () => {
    await flakyTests();
    const urlMessage = "must be an absolute http or https URL";
    const cases: [unknown, string][] = [
      ["javascript:alert(1)", urlMessage],
      ["ftp://files.example/WID-42", urlMessage],
      ["/browse/WID-42", urlMessage],
      ["WID-42", urlMessage],
      ["https://", urlMessage],
      ["https://bot:hunter2@tickets.example/WID-42", "must not hold a user name or password"],
      [
        `https://tickets.example/${"x".repeat(2048 - 23)}`,
        "must NOT have more than 2048 characters, or must be null",
      ],
      ["", "must NOT have fewer than 1 characters, or must be null"],
      [42, "must be string, or must be null"],
    ];
    for (const [ticketUrl, message] of cases) {
      const { status, type, body } = await link("flips", ticketUrl);
      expect(status, String(ticketUrl)).toBe(400);
      expect(type).toContain("application/problem+json");
      expect(body).toMatchObject({ code: "invalid_request", errors: [{ path: "ticket_url", message }] });
    }
    const longest = `https://tickets.example/${"x".repeat(2048 - 24)}`;
    expect(longest).toHaveLength(2048);
    expect((await link("flips", longest)).body.test.ticket).toEqual({ html_url: longest });
    const missing = await post("link-ticket", { ...target, test_id: widgetsTestId("flips") });
    expect(missing.body).toMatchObject({
      code: "invalid_request",
      errors: [{ path: "ticket_url", message: "is required" }],
    });
  });

  it("answers like set-quarantine-setting for a bad test id, another organization and no token", async () => {
    const body = (extra: Record<string, unknown>) => ({
      ...target,
      test_id: widgetsTestId("flips"),
      ticket_url: jira,
      ...extra,
    });
    const cases: [unknown, string, number, string][] = [
      [body({}), token, 404, "test_not_found"],
      [body({ test_id: "WID-42" }), token, 400, "invalid_request"],
      [body({ org_url_slug: "globex" }), token, 403, "forbidden"],
      [body({ repo: { ...repo, owner: "globex" } }), token, 403, "forbidden"],
      [body({ repo: { ...repo, host: "gitlab.com" } }), token, 400, "unsupported_host"],
      [body({}), "", 401, "unauthenticated"],
    ];
    for (const [request, as, status, code] of cases) {
      const response = await post("link-ticket", request, as);
      expect(response.status, code).toBe(status);
      expect(response.body.code).toBe(code);
    }
  });

  it("is described in the OpenAPI document", async () => {
    const document = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as any;
    const operation = document.paths["/v1/flaky-tests/link-ticket"].post;
    const request = operation.requestBody.content["application/json"].schema;
    expect(request.required).toEqual(
      expect.arrayContaining(["repo", "org_url_slug", "test_id", "ticket_url"]),
    );
    expect(request.properties.ticket_url.anyOf).toContainEqual(expect.objectContaining({ maxLength: 2048 }));
    expect(Object.keys(operation.responses)).toEqual(
      expect.arrayContaining(["200", "400", "401", "403", "404"]),
    );
  });
});
