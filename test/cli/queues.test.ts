// switchyard queues (POST /v1/listQueues): a repository's queues, by branch, with their state and how many PRs each
// holds.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ciVariables } from "../../src/cli/ci-environment.ts";
import { runCli } from "../../src/cli/program.ts";
import { loadConfig } from "../../src/config.ts";
import { repoRef as repo, type Scenario, startScenario } from "../support/queue-scenario.ts";

describe("switchyard queues", () => {
  let s: Scenario;
  beforeEach(async () => {
    for (const name of ciVariables) vi.stubEnv(name, "");
    s = await startScenario();
  });
  afterEach(async () => {
    vi.unstubAllEnvs();
    await s.close();
  });

  async function cli(...argv: string[]) {
    let out = "";
    let err = "";
    const code = await runCli(argv, {
      out: (text) => (out += text),
      err: (text) => (err += text),
      config: () => loadConfig({ DATABASE_URL: "file::memory:" }),
      now: Date.now,
    });
    return { code, out, err };
  }
  const service = () => ["--url", s.server.url, "--token", s.token, "--repo", "acme/widgets"];

  it("lists the queues by branch, with their state, mode and PRs", async () => {
    expect(await cli("queues", ...service())).toEqual({
      code: 0,
      out: "acme/widgets has no merge queue\n",
      err: "",
    });
    await s.api("createQueue", { repo, targetBranch: "main", requiredStatuses: ["ci"] });
    await s.api("createQueue", { repo, targetBranch: "release/2.x", mode: "parallel", concurrency: 4 });
    await s.api("updateQueue", { repo, targetBranch: "release/2.x", state: "paused" });
    s.repo.openPullRequest({ number: 1, title: "One", author: "alice", files: { "src/1.ts": "1\n" } });
    await s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number: 1 } });
    await s.settle();

    const listed = await cli("queues", ...service());
    expect(listed.out).toBe(
      [
        "BRANCH       STATE                            MODE      PRS  CONCURRENCY  BATCH",
        "main         running                          single    1    1            off",
        "release/2.x  paused (waiting for the branch)  parallel  0    4            off",
        "",
      ].join("\n"),
    );
    const json = JSON.parse((await cli("queues", ...service(), "--json")).out);
    expect(json.queues).toHaveLength(2);
    expect(json.queues[0]).toMatchObject({
      branch: "main",
      state: "running",
      depth: 1,
      requiredStatuses: ["ci"],
    });
    expect(json.queues[0]).not.toHaveProperty("enqueuedPullRequests");
  });

  it("says why it cannot list without a service, a token and a repository", async () => {
    const result = await cli("queues");
    expect(result.code).toBe(1);
    expect(result.err).toContain("cannot list queues without the service URL");
  });

  it("quotes the service's refusal of a repository outside the token's organization", async () => {
    const result = await cli("queues", "--url", s.server.url, "--token", s.token, "--repo", "other/thing");
    expect(result.code).toBe(1);
    expect(result.err).toContain("does not cover github.com/other");
  });
});
