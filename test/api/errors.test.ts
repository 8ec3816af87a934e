import { request as httpRequest } from "node:http";
import nock from "nock";
import { beforeEach, describe, expect, it } from "vitest";
import { revokeToken } from "../../src/store/tokens.ts";
import { type TestServer, tokenFor, useTestServer } from "../support/api-server.ts";
import type { TestStore } from "../support/database.ts";
import { useNockedGitHub } from "../support/nock-github.ts";

const repo = { host: "github.com", owner: "acme", name: "widgets" };
const MiB = 1024 * 1024;

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * Sends `totalBytes` of body in 64 KiB chunks (chunked, or with a declared Content-Length) and resolves
 * with the response as soon as it is complete, even while the body is still being written.
 */
function sendLargeBody(url: string, token: string, totalBytes: number, declareLength: boolean) {
  return new Promise<RawResponse>((resolve, reject) => {
    const target = new URL(`${url}/v1/getQueue`);
    const req = httpRequest({
      host: target.hostname,
      port: target.port,
      path: target.pathname,
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-api-token": token,
        ...(declareLength ? { "content-length": String(totalBytes) } : {}),
      },
    });
    req.on("response", (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    const chunk = Buffer.alloc(64 * 1024, " ");
    let sent = 0;
    const write = () => {
      while (sent < totalBytes) {
        const piece = chunk.subarray(0, Math.min(chunk.length, totalBytes - sent));
        sent += piece.length;
        if (!req.write(piece)) {
          req.once("drain", write);
          return;
        }
      }
      req.end();
    };
    write();
  });
}

describe("errors are problem JSON with a stable code", () => {
  useNockedGitHub({ strict: false });
  const fixture = useTestServer();
  let store: TestStore;
  let server: TestServer;
  let token: string;
  beforeEach(() => ({ store, server, token } = fixture));

  const expectProblem = async (response: Response, status: number, code: string) => {
    expect(response.status).toBe(status);
    expect(response.headers.get("content-type")).toBe("application/problem+json; charset=utf-8");
    const body = (await response.json()) as any;
    expect(body).toMatchObject({ type: "about:blank", status, code });
    expect(typeof body.title).toBe("string");
    expect(typeof body.detail).toBe("string");
    return body;
  };

  it("answers 401 unauthenticated without a token", async () => {
    await expectProblem(
      await server.post("getQueue", { repo, targetBranch: "main" }),
      401,
      "unauthenticated",
    );
  });

  it("answers 401 for an unknown token and for a forged secret of a real token id", async () => {
    await expectProblem(
      await server.post("getQueue", { repo, targetBranch: "main" }, "nonsense"),
      401,
      "unauthenticated",
    );
    const forged = `${token.slice(0, 20)}${"A".repeat(token.length - 20)}`;
    await expectProblem(
      await server.post("getQueue", { repo, targetBranch: "main" }, forged),
      401,
      "unauthenticated",
    );
  });

  it("answers 401 for a revoked token", async () => {
    const id = token.split("_")[1] as string;
    await revokeToken(store.db, id, Date.now());
    await expectProblem(
      await server.post("getQueue", { repo, targetBranch: "main" }, token),
      401,
      "unauthenticated",
    );
  });

  it("lists every bad field of an invalid request", async () => {
    const body = await expectProblem(
      await server.post(
        "createQueue",
        { repo: { host: "github.com", owner: "acme" }, concurrency: 0, mode: "sideways", batch: "yes" },
        token,
      ),
      400,
      "invalid_request",
    );
    expect(body.errors).toEqual(
      expect.arrayContaining([
        { path: "repo.name", message: "is required" },
        { path: "targetBranch", message: "is required" },
        { path: "concurrency", message: "must be >= 1" },
        { path: "mode", message: "must be one of single, parallel" },
        { path: "batch", message: "must be boolean" },
      ]),
    );
    expect(body.errors).toHaveLength(5);
    expect(await store.db.selectFrom("queues").selectAll().execute()).toEqual([]);
  });

  it("answers 400 invalid_json for malformed JSON", async () => {
    const response = await fetch(`${server.url}/v1/getQueue`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-token": token },
      body: '{"repo": {',
    });
    await expectProblem(response, 400, "invalid_json");
  });

  it("never quotes a malformed body, which may hold a credential pasted in by mistake", async () => {
    const credential = "hunter2-opensesame";
    for (const body of [
      `{"password": ${credential}}`,
      `{"repo": {"owner": "acme"}, "password": ${credential}}`,
    ]) {
      const response = await fetch(`${server.url}/v1/getQueue`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-token": token },
        body,
      });
      const problem = await expectProblem(response, 400, "invalid_json");
      expect(problem.detail).toMatch(/^the request body is not valid JSON: Unexpected token 'h'/);
      expect(problem.detail).not.toContain("hunter2");
      expect(problem.detail).not.toContain("password");
    }
  });

  it.each([
    ['{"repo": {"__proto__": {"admin": true}}}', "__proto__"],
    ['{"constructor": {"prototype": {}}}', "constructor"],
    ['{"repo": {"\\u005f_proto__": {}}}', "__proto__"],
  ])("refuses a body with a prototype key: %s", async (text, key) => {
    const response = await fetch(`${server.url}/v1/createQueue`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-token": token },
      body: text,
    });
    const body = await expectProblem(response, 400, "invalid_json");
    expect(body.detail).toContain(`"${key}"`);
    expect(await store.db.selectFrom("queues").selectAll().execute()).toEqual([]);
  });

  it("answers 400 for a JSON body that is not an object", async () => {
    const body = await expectProblem(await server.post("getQueue", [1, 2], token), 400, "invalid_request");
    expect(body.errors).toEqual([{ path: "(body)", message: "must be object" }]);
  });

  it("answers 415 for a body that is not JSON, and for a POST without any content type", async () => {
    const form = await fetch(`${server.url}/v1/getQueue`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-api-token": token },
      body: "repo=acme",
    });
    await expectProblem(form, 415, "unsupported_media_type");
    const bare = await fetch(`${server.url}/v1/getQueue`, {
      method: "POST",
      headers: { "x-api-token": token },
    });
    await expectProblem(bare, 415, "unsupported_media_type");
  });

  it("answers 404 not_found for an unknown path and 405 for a wrong method", async () => {
    await expectProblem(await server.post("noSuchThing", {}, token), 404, "not_found");
    const wrongMethod = await fetch(`${server.url}/v1/getQueue`, { headers: { "x-api-token": token } });
    await expectProblem(wrongMethod, 405, "method_not_allowed");
  });

  it("leaves paths outside /v1 to Probot", async () => {
    const ping = await fetch(`${server.url}/v1x`);
    expect(ping.status).toBe(404);
    expect(ping.headers.get("content-type")).toBeNull();
  });

  it("answers 500 without internals, naming the request id that the log carries", async () => {
    await store.db.deleteFrom("api_tokens").execute();
    const brokenToken = await tokenFor(store, "acme");
    await store.db.schema.dropTable("queues").execute();
    nock("https://api.github.com").get("/repos/acme/widgets/installation").reply(200, { id: 1 });
    const body = await expectProblem(
      await server.post("getQueue", { repo, targetBranch: "main" }, brokenToken),
      500,
      "internal_error",
    );
    expect(body.detail).toMatch(
      /^internal error: the service logged the details \(request [0-9a-f]{12}-[0-9a-z]+\)$/,
    );
    expect(JSON.stringify(body)).not.toMatch(/queues|SQL|at /);
  });

  it("refuses a body declared over 20 MiB with 413 while the client is still sending, then closes", async () => {
    const response = await sendLargeBody(server.url, token, 25 * MiB, true);
    expect(response.status).toBe(413);
    expect(response.headers.connection).toBe("close");
    expect(JSON.parse(response.body)).toMatchObject({ status: 413, code: "payload_too_large" });
  });

  it("refuses a chunked body once more than 20 MiB arrived, without buffering it", async () => {
    const before = process.memoryUsage().rss;
    const response = await sendLargeBody(server.url, token, 100 * MiB, false);
    const grown = process.memoryUsage().rss - before;
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body).code).toBe("payload_too_large");
    // 100 MiB went through the server, which shares this process; keeping it would show. The margin leaves
    // room for garbage not yet collected. (The client side of this test buffers nothing.)
    expect(grown).toBeLessThan(60 * MiB);
  });

  it("accepts a body just under the limit", async () => {
    const padding = "x".repeat(20 * MiB - 200);
    const response = await server.post(
      "getQueue",
      { repo: { ...repo, owner: "other" }, targetBranch: "main", padding },
      token,
    );
    expect(response.status).toBe(403);
  });
});
