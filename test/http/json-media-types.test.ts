// Which Content-Type headers a /v1 body may come with. JSON with any parameter (`charset=utf-8`, as many HTTP
// clients send) and the structured `+json` types are read; the edge cases are Fastify's own JSON parser's, kept
// since our parser replaced it: type and subtype compare case-insensitively, parameters are ignored, a header
// Fastify cannot parse or a type that only starts with "json" is refused with 415.
import { beforeEach, describe, expect, it } from "vitest";
import { useTestHealthServer, widgetsTarget } from "../support/test-health.ts";
import type { TestServer } from "../support/api-server.ts";

describe("JSON request bodies and their Content-Type", () => {
  const fixture = useTestHealthServer("sqlite", () => Date.parse("2026-11-21T12:00:00.000Z"));
  let server: TestServer;
  let token: string;
  beforeEach(() => ({ server, token } = fixture));

  const send = (
    contentType: string | undefined,
    body = JSON.stringify({ ...widgetsTarget, page_query: {} }),
  ) =>
    fetch(`${server.url}/v1/flaky-tests/list-quarantined-tests`, {
      method: "POST",
      headers: {
        "x-api-token": token,
        ...(contentType === undefined ? {} : { "content-type": contentType }),
      },
      body,
    });

  it.each([
    "application/json",
    "application/json; charset=utf-8",
    "application/json;charset=UTF-8",
    'application/json; charset="utf-8"',
    "Application/JSON; Charset=utf-8",
    "application/json; charset=utf-8; boundary=x",
    "application/json;",
    "application/json ; charset=utf-8",
    "application/vnd.api+json",
    "application/merge-patch+json; charset=utf-8",
  ])("reads a body sent as %s", async (contentType) => {
    const response = await send(contentType);
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await response.json()).toMatchObject({ quarantined_tests: [] });
  });

  it.each([
    "text/plain",
    "text/json",
    "application/jsonx",
    "application/json-seq",
    "application/json, text/plain",
    "application/x-www-form-urlencoded; charset=utf-8",
    "json",
  ])("answers 415 unsupported_media_type for %s", async (contentType) => {
    const response = await send(contentType);
    expect(response.status).toBe(415);
    expect(response.headers.get("content-type")).toBe("application/problem+json; charset=utf-8");
    expect(await response.json()).toMatchObject({ status: 415, code: "unsupported_media_type" });
  });

  it("reads a body with a charset parameter as UTF-8, as JSON always is", async () => {
    const response = await send(
      "application/json; charset=utf-8",
      JSON.stringify({ ...widgetsTarget, page_query: {}, org_url_slug: "acmé" }),
    );
    expect(response.status).toBe(403);
    expect(((await response.json()) as { detail: string }).detail).toContain('"acmé"');
  });
});
