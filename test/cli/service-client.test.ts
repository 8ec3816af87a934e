// The client's requests to the service: which refusals are worth another attempt, and what the user reads.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { CliError } from "../../src/cli/io.ts";
import { postToService } from "../../src/cli/service-client.ts";

/** A service that gives the answers in turn (the last one again once they run out), counting requests. */
async function serviceAnswering(...answers: { status: number; body: unknown }[]) {
  let requests = 0;
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      const answer = answers[Math.min(requests, answers.length - 1)] as (typeof answers)[number];
      requests++;
      response.writeHead(answer.status, { "content-type": "application/problem+json" });
      response.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests: () => requests, close: () => server.close() };
}

const notRegistered = {
  status: 503,
  body: {
    code: "github_app_not_registered",
    detail: "The GitHub App is not registered yet: open the service's address to register it.",
  },
};
const githubDown = { status: 503, body: { code: "github_unavailable", detail: "GitHub is unavailable." } };

describe("requests to the service", () => {
  let close = () => {};
  afterEach(() => close());

  async function post(url: string) {
    return postToService(
      { serviceUrl: url, token: "sy_test" },
      { path: "listQueues", body: "{}", what: "listing queues" },
    );
  }

  it("does not ask again while the GitHub App is not registered: the answer would be the same", async () => {
    const service = await serviceAnswering(notRegistered);
    close = service.close;
    const failure = await post(service.url).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(CliError);
    expect((failure as Error).message).toBe(
      "listing queues was refused: The GitHub App is not registered yet: open the service's address to register it. (github_app_not_registered)",
    );
    expect(service.requests()).toBe(1);
  });

  it("asks again when GitHub is down for a moment, and takes the answer that follows", async () => {
    const service = await serviceAnswering(githubDown, { status: 200, body: { queues: [] } });
    close = service.close;
    expect(await post(service.url)).toEqual({ queues: [] });
    expect(service.requests()).toBe(2);
  });

  it("says which request failed when the service fails without a problem", async () => {
    const service = await serviceAnswering({ status: 500, body: "oops" });
    close = service.close;
    const failure = await post(service.url).catch((error: unknown) => error);
    expect((failure as Error).message).toBe("listing queues failed on the Switchyard service: HTTP 500");
    expect(service.requests()).toBe(3);
  });
});
