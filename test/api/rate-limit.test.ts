// The optional per-token rate limit: off unless API_RATE_LIMIT_PER_MINUTE is set; then a token that spends its
// minute's allowance gets 429 rate_limited with Retry-After, and other tokens are not held back.
import { afterEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer, tokenFor } from "../support/api-server.ts";
import { createTestStore, type TestStore } from "../support/database.ts";

const repo = { host: "github.com", owner: "acme", name: "widgets" };

describe("per-token rate limit", () => {
  let store: TestStore;
  let server: TestServer;
  let now = 1_000_000;
  afterEach(async () => {
    await server.close();
    await store.close();
  });

  const start = async (env: Record<string, string> = {}) => {
    store = await createTestStore("sqlite");
    server = await startTestServer(store, { env, clock: () => now });
  };
  const listQueues = (token: string) => server.post("getQueue", { repo, targetBranch: "main" }, token);

  it("refuses a token beyond its allowance with 429 rate_limited and Retry-After, and lets it in again later", async () => {
    await start({ API_RATE_LIMIT_PER_MINUTE: "3" });
    const runaway = await tokenFor(store, "acme");
    const other = await tokenFor(store, "acme");
    for (let i = 0; i < 3; i++) expect((await listQueues(runaway)).status).not.toBe(429);
    const refused = await listQueues(runaway);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    // 3 a minute: one more request is allowed 20 s after the allowance ran out.
    expect(refused.headers.get("retry-after")).toBe("20");
    expect(await refused.json()).toMatchObject({ status: 429, code: "rate_limited" });
    expect((await listQueues(other)).status).not.toBe(429);
    now += 20_000;
    expect((await listQueues(runaway)).status).not.toBe(429);
    expect((await listQueues(runaway)).status).toBe(429);
  });

  it("counts nothing when the variable is unset", async () => {
    await start();
    const token = await tokenFor(store, "acme");
    for (let i = 0; i < 50; i++) expect((await listQueues(token)).status).not.toBe(429);
  });

  it("does not count requests without a valid token against anyone", async () => {
    await start({ API_RATE_LIMIT_PER_MINUTE: "1" });
    for (let i = 0; i < 3; i++) expect((await listQueues("sy_0000000000000000_nope")).status).toBe(401);
    const token = await tokenFor(store, "acme");
    expect((await listQueues(token)).status).not.toBe(429);
  });
});
