import { ProbotOctokit } from "probot";
import { describe, expect, it } from "vitest";
import { FakeGitHub, fakeOctokit } from "../../src/sandbox/fake-github/index.ts";

describe("the fetch transport", () => {
  it("answers 404 Not Found for routes it does not implement, and records them as unhandled", async () => {
    const fake = new FakeGitHub();
    fake.createRepository("acme/widgets");
    const octokit = fakeOctokit(fake);

    await expect(
      octokit.rest.issues.addLabels({ owner: "acme", repo: "widgets", issue_number: 1, labels: ["x"] }),
    ).rejects.toMatchObject({
      status: 404,
      response: { data: { message: "Not Found", documentation_url: expect.any(String) } },
    });
    await octokit.rest.repos.get({ owner: "acme", repo: "widgets" });

    expect(fake.unhandled).toEqual([
      { method: "POST", path: "/repos/acme/widgets/issues/1/labels", query: "", body: { labels: ["x"] } },
    ]);
    expect(fake.calls()).toEqual(["POST /repos/acme/widgets/issues/1/labels", "GET /repos/acme/widgets"]);
  });

  it("answers 404 for an unknown repository without counting it as unhandled; names are case-insensitive", async () => {
    const fake = new FakeGitHub();
    fake.createRepository("Acme/Widgets");
    const octokit = fakeOctokit(fake);

    await expect(octokit.rest.repos.get({ owner: "acme", repo: "nope" })).rejects.toMatchObject({
      status: 404,
    });
    const found = await octokit.rest.repos.get({ owner: "acme", repo: "widgets" });

    expect(found.data.full_name).toBe("Acme/Widgets");
    expect(fake.unhandled).toEqual([]);
  });

  it("fails the next matching calls when told, as a flaky GitHub would", async () => {
    const fake = new FakeGitHub();
    fake.createRepository("acme/widgets");
    const octokit = fakeOctokit(fake);
    fake.failNext({
      method: "GET",
      path: /^\/repos\/acme\/widgets$/,
      status: 502,
      message: "Bad Gateway",
      times: 2,
    });

    const attempts = await Promise.allSettled(
      [1, 2, 3].map(() => octokit.rest.repos.get({ owner: "acme", repo: "widgets" })),
    );

    expect(attempts.map((attempt) => attempt.status)).toEqual(["rejected", "rejected", "fulfilled"]);
    expect(attempts[0]).toMatchObject({ reason: { status: 502 } });
  });

  it("answers 400 for a body that is not JSON", async () => {
    const fake = new FakeGitHub();
    fake.createRepository("acme/widgets");

    const response = await fake.fetch("https://api.github.com/repos/acme/widgets/git/refs", {
      method: "POST",
      body: "{",
    });

    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ message: "Problems parsing JSON" });
  });

  it("serves a GitHub Enterprise API root, and treats other hosts as unhandled", async () => {
    const fake = new FakeGitHub({
      apiUrl: "https://ghe.example.com/api/v3",
      webUrl: "https://ghe.example.com",
    });
    fake.createRepository("acme/widgets");
    const octokit = new (ProbotOctokit.defaults({
      baseUrl: "https://ghe.example.com/api/v3",
      request: { fetch: fake.fetch },
      retry: { enabled: false },
      throttle: { enabled: false },
    }))({ auth: { token: "x" } });

    const { data } = await octokit.rest.repos.get({ owner: "acme", repo: "widgets" });
    const elsewhere = await fake.fetch("https://api.github.com/repos/acme/widgets");

    expect(data).toMatchObject({
      url: "https://ghe.example.com/api/v3/repos/acme/widgets",
      html_url: "https://ghe.example.com/acme/widgets",
    });
    expect(elsewhere.status).toBe(404);
    expect(fake.unhandled.map((request) => request.path)).toEqual([
      "https://api.github.com/repos/acme/widgets",
    ]);
  });

  it("accepts a Request object as fetch input", async () => {
    const fake = new FakeGitHub();
    fake.createRepository("acme/widgets");

    const response = await fake.fetch(
      new Request("https://api.github.com/repos/acme/widgets/git/ref/heads%2Fmain"),
    );

    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
  });
});

describe("determinism", () => {
  it("gives the same SHAs, ids and timestamps to the same scenario", () => {
    const run = () => {
      const fake = new FakeGitHub();
      const repo = fake.createRepository("acme/widgets");
      const pr = repo.openPullRequest({ title: "One", author: "alice", files: { a: "1" } });
      const status = repo.reportStatus(pr.headSha, "ci", "success");
      return { pr, status, webhooks: fake.webhooks };
    };

    expect(run()).toEqual(run());
  });

  it("uses the clock a test gives", () => {
    const fake = new FakeGitHub({ now: () => Date.parse("2026-11-21T10:00:00Z") });
    const repo = fake.createRepository("acme/widgets");

    expect(repo.openPullRequest({ title: "One", author: "alice", files: { a: "1" } }).createdAt).toBe(
      "2026-11-21T10:00:00Z",
    );
  });
});
