// What an API token is bound to: its secret and its organization, never the name the service is reached by. A
// token made on the server's machine keeps working behind a proxy, a load balancer or another DNS name.
import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { tokenFor, useTestServer } from "../support/api-server.ts";

interface Answer {
  status: number;
  code?: string;
}

describe("API tokens and the host the service is reached by", () => {
  const fixture = useTestServer();

  /** Sends a request to the test server with the given Host and forwarding headers; a body makes it a POST. */
  function send(path: string, headers: Record<string, string>, body?: unknown): Promise<Answer> {
    const { port } = new URL(fixture.server.url);
    const method = body === undefined ? "GET" : "POST";
    return new Promise((resolve, reject) => {
      const outgoing = request(
        { host: "127.0.0.1", port, method, path: `/v1/${path}`, headers },
        (response) => {
          let text = "";
          response.on("data", (chunk: Buffer) => (text += chunk.toString()));
          response.on("end", () => {
            const isJson = /json/.test(response.headers["content-type"] ?? "");
            const code = isJson ? (JSON.parse(text) as { code?: string }).code : undefined;
            resolve({ status: response.statusCode ?? 0, ...(code === undefined ? {} : { code }) });
          });
        },
      );
      outgoing.on("error", reject);
      outgoing.end(body === undefined ? undefined : JSON.stringify(body));
    });
  }

  const json = { "content-type": "application/json" };
  const reachedAs: Record<string, string>[] = [
    { host: "127.0.0.1" },
    { host: "localhost" },
    { host: "switchyard.internal:3000" },
    // A reverse proxy that keeps the internal Host and says where the request came in.
    {
      host: "10.0.0.7:3000",
      "x-forwarded-host": "switchyard.example.com",
      "x-forwarded-proto": "https",
      "x-forwarded-for": "203.0.113.9",
    },
  ];
  const getQueue = { repo: { host: "github.com", owner: "acme", name: "widgets" }, targetBranch: "main" };

  it("accepts the same token whatever Host and X-Forwarded-* headers the request carries", async () => {
    for (const headers of reachedAs) {
      const answer = await send("getMergeQueueMetrics", { ...headers, "x-api-token": fixture.token });
      expect(answer, JSON.stringify(headers)).toEqual({ status: 200 });
    }
  });

  it("still refuses a token of another organization, and a missing token, whatever the host", async () => {
    const other = await tokenFor(fixture.store, "globex");
    for (const headers of reachedAs) {
      expect(await send("getQueue", { ...json, ...headers, "x-api-token": other }, getQueue)).toEqual({
        status: 403,
        code: "forbidden",
      });
      expect(await send("getQueue", { ...json, ...headers }, getQueue)).toEqual({
        status: 401,
        code: "unauthenticated",
      });
    }
  });
});
