// The fake GitHub over HTTP answers as GitHub Enterprise does at /api/v3, and fails as told for a while.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type GitHubServer, startGitHubServer } from "../../src/sandbox/github-server.ts";

describe("the fake GitHub over HTTP", () => {
  let github: GitHubServer;
  const api = (path: string, init?: RequestInit) => fetch(`http://${github.host}/api/v3${path}`, init);

  beforeEach(async () => {
    github = await startGitHubServer();
    github.fake.createRepository("acme/widgets", { installationId: 7 });
  });
  afterEach(() => github.close());

  it("answers the REST API under /api/v3, with URLs on its own host", async () => {
    const response = await api("/repos/acme/widgets");
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      full_name: "acme/widgets",
      url: `http://${github.host}/api/v3/repos/acme/widgets`,
    });
    const created = await api("/repos/acme/widgets/git/refs", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        ref: "refs/heads/topic",
        sha: github.fake.repository("acme/widgets").branch("main"),
      }),
    });
    expect(created.status).toBe(201);
    expect(github.fake.repository("acme/widgets").branches()).toEqual(["main", "topic"]);
  });

  it("answers 500 and 502 during an outage, and normally after it", async () => {
    github.startOutage("500", 1_000);
    expect((await api("/repos/acme/widgets")).status).toBe(500);
    github.startOutage("502", 1_000);
    expect((await api("/repos/acme/widgets")).status).toBe(502);
    await new Promise((resolve) => setTimeout(resolve, 1_050));
    expect((await api("/repos/acme/widgets")).status).toBe(200);
    expect(github.failedCalls).toBe(2);
  });

  it("answers a secondary rate limit with 403 and retry-after until it ends", async () => {
    github.startOutage("rate-limit", 3_000);
    const response = await api("/repos/acme/widgets");
    expect(response.status).toBe(403);
    expect(response.headers.get("retry-after")).toBe("3");
    expect(((await response.json()) as { message: string }).message).toMatch(/secondary rate limit/);
  });

  it("holds calls during a hang and drops their connections when it ends", async () => {
    github.startOutage("hang", 300);
    const started = Date.now();
    await expect(api("/repos/acme/widgets")).rejects.toThrow();
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect((await api("/repos/acme/widgets")).status).toBe(200);
  });
});
