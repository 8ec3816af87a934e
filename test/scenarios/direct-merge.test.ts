// Direct merge end to end (docs/queue.md#direct-merge): a PR whose head already holds main and passed its required statuses
// merges without a test branch; any other PR goes through a run as usual.
import { afterEach, describe, expect, it } from "vitest";
import { testDialects } from "../support/database.ts";
import {
  type GitHubWrite,
  recordWrites,
  repoRef as repo,
  type Scenario,
  startScenario,
} from "../support/queue-scenario.ts";

describe.each(testDialects)("direct merge on %s", (dialect) => {
  let s: Scenario;
  let writes: GitHubWrite[];

  afterEach(async () => {
    expect(s.fake.unhandled).toEqual([]);
    await s.close();
  });

  const start = async (settings: Record<string, unknown>) => {
    const recorder = recordWrites();
    writes = recorder.writes;
    s = await startScenario({ dialect, whileAppWaits: recorder.whileAppWaits });
    await s.api("createQueue", { repo, targetBranch: "main", directMergeMode: "always", ...settings });
    s.repo.openPullRequest({
      number: 1,
      title: "Change 1",
      author: "alice",
      files: { "src/one.ts": "one\n" },
    });
  };
  const submit = () => s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number: 1 } });
  const record = async () =>
    (await s.api("getSubmittedPullRequest", { repo, targetBranch: "main", pr: { number: 1 } })).body;
  const testBranchWrites = () => writes.filter((write) => write.path.startsWith("/git/refs"));
  const headOf1 = () => s.repo.pullRequest(1).headSha;

  it("merges a PR up to date with main whose required status passed on its head, without a test branch", async () => {
    await start({ requiredStatuses: ["ci"] });
    s.repo.reportStatus(headOf1(), "ci", "success");

    await submit();
    await s.settle();

    expect(await record()).toMatchObject({ state: "merged", stateReason: "merged", testRunId: null });
    expect((await record()).stateDetail).toContain("Merged directly");
    expect(s.repo.pullRequest(1).merged).toBe(true);
    expect(s.repo.fileAt("main", "src/one.ts")).toBe("one\n");
    expect(testBranchWrites()).toEqual([]);
    expect(s.repo.statuses(headOf1())[0]).toMatchObject({
      context: "Switchyard Merge Queue (main)",
      state: "success",
    });
  });

  it("with merge_commit and branch protection's check runs, moves main to the PR head itself", async () => {
    s = await startScenario({ dialect });
    s.repo.protectBranch("main", { requiredChecks: ["build"] });
    await s.api("createQueue", {
      repo,
      targetBranch: "main",
      directMergeMode: "always",
      mergeMethod: "merge_commit",
    });
    s.repo.openPullRequest({
      number: 1,
      title: "Change 1",
      author: "alice",
      files: { "src/one.ts": "one\n" },
    });
    s.repo.reportCheckRun(headOf1(), "build", { conclusion: "success" });
    await s.settle();

    await submit();
    await s.settle();

    expect(await record()).toMatchObject({ state: "merged", testRunId: null });
    expect((await record()).stateDetail).toContain("Merged directly");
    expect(s.repo.branch("main")).toBe(headOf1());
    expect(s.repo.pullRequest(1).merged).toBe(true);
  });

  it("tests a PR that main moved away from, in a run, and merges it once the run passes", async () => {
    await start({ requiredStatuses: ["ci"] });
    s.repo.reportStatus(headOf1(), "ci", "success");
    s.repo.commit("main", { "docs/notes.md": "notes\n" });
    await s.settle();

    await submit();
    await s.settle();

    const testing = await record();
    expect(testing.state).toBe("testing");
    const run = (
      await s.api("getMergeQueueTestingDetails", { repo, targetBranch: "main", testRunId: testing.testRunId })
    ).body;
    s.repo.reportStatus(run.testBranchSha, "ci", "success");
    await s.settle();

    const merged = await record();
    expect(merged.state).toBe("merged");
    expect(merged.stateDetail).not.toContain("directly");
    expect(s.repo.fileAt("main", "docs/notes.md")).toBe("notes\n");
  });

  it("waits out GitHub's rate limit on the check, then merges directly", async () => {
    await start({ requiredStatuses: ["ci"] });
    s.repo.reportStatus(headOf1(), "ci", "success");
    s.fake.failNext({
      method: "GET",
      path: /\/compare\//,
      status: 403,
      message: "You have exceeded a secondary rate limit",
      headers: { "retry-after": "30" },
    });

    await submit();
    await s.settle();
    expect(await record()).toMatchObject({ state: "pending", testRunId: null });

    s.clock.now += 31_000;
    await s.poll();

    expect((await record()).state).toBe("merged");
    expect(testBranchWrites()).toEqual([]);
    expect(s.fake.calls().filter((call) => call.includes("/compare/"))).toHaveLength(2);
  });
});
