// docs/queue.md#parallel-lanes end to end on a fake GitHub: PRs whose impacted targets do not intersect are tested in
// independent lanes and merge without waiting for each other; a failure rebuilds only its own lane; "ALL" joins
// every lane; a push asks for new targets.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { testDialects } from "../support/database.ts";
import { repoRef as repo, type Scenario, startScenario } from "../support/queue-scenario.ts";

const BROKEN = "broken\n";

interface RunRecord {
  id: string;
  status: string;
  testBranchSha: string;
  testedPullRequests: { prNumber: number }[];
  dependentPrs: number[];
  impactedTargets?: string[];
  impactedTargetsForTestedPrs?: string[];
}

describe.each(testDialects)("parallel lanes on %s", (dialect) => {
  let s: Scenario;
  beforeEach(async () => {
    s = await startScenario({ dialect });
  });
  afterEach(async () => {
    expect(s.fake.unhandled).toEqual([]);
    await s.close();
  });

  const queue = { repo, targetBranch: "main" };
  const createQueue = (settings: Record<string, unknown> = {}) =>
    s.api("createQueue", {
      ...queue,
      requiredStatuses: ["ci"],
      mode: "parallel",
      concurrency: 8,
      ...settings,
    });
  const setTargets = async (number: number, impactedTargets: string[] | "ALL") => {
    const sha = s.repo.pullRequest(number).headSha;
    const answer = await s.api("setImpactedTargets", { ...queue, pr: { number, sha }, impactedTargets });
    expect(answer.status).toBe(200);
  };
  /** Opens PR n adding its own file (one that fails CI when broken), uploads its targets, submits it. */
  const submit = async (number: number, targets: string[] | "ALL", broken = false) => {
    s.repo.openPullRequest({
      number,
      title: `Change ${number}`,
      author: "alice",
      files: { [`src/${number}.ts`]: broken ? BROKEN : `${number}\n` },
    });
    await setTargets(number, targets);
    await s.api("submitPullRequest", { ...queue, pr: { number } });
    await s.settle();
  };
  const record = async (number: number) =>
    (await s.api("getSubmittedPullRequest", { ...queue, pr: { number } })).body;
  const run = async (testRunId: string): Promise<RunRecord> =>
    (await s.api("getMergeQueueTestingDetails", { ...queue, testRunId })).body;
  const runOf = async (number: number) => run((await record(number)).testRunId);
  const report = async (number: number, state: "success" | "failure") => {
    s.repo.reportStatus((await runOf(number)).testBranchSha, "ci", state, {
      targetUrl: "https://ci.example/1",
    });
    await s.settle();
  };
  const onMain = (number: number) => s.repo.fileAt("main", `src/${number}.ts`) !== undefined;

  describe.each(["merge_commit", "squash", "rebase"] as const)("with mergeMethod %s", (mergeMethod) => {
    it("merges a PR of one lane while the other lane is still testing", async () => {
      await createQueue({ mergeMethod });
      await submit(1, ["//app/api"]);
      await submit(2, ["//docs"]);
      await submit(3, ["//app/api", "//app/web"]);

      const [first, second, third] = [await runOf(1), await runOf(2), await runOf(3)];
      expect(first.dependentPrs).toEqual([]);
      expect(second.dependentPrs).toEqual([]);
      expect(third.dependentPrs).toEqual([1]);
      expect(third.impactedTargetsForTestedPrs).toEqual(["//app/api", "//app/web"]);
      expect([...(third.impactedTargets ?? [])].sort()).toEqual(["//app/api", "//app/web"]);
      // #2's lane holds only itself: its branch does not carry #1.
      expect(s.repo.fileAt(second.testBranchSha, "src/1.ts")).toBeUndefined();
      expect(s.repo.fileAt(third.testBranchSha, "src/1.ts")).toBe("1\n");

      await report(2, "success");
      expect((await record(2)).state).toBe("merged");
      expect(onMain(2)).toBe(true);
      expect((await record(1)).state).toBe("testing");

      // #3 passed, but waits for #1, which it depends on.
      await report(3, "success");
      expect((await record(3)).state).toBe("tests_passed");
      expect(onMain(3)).toBe(false);

      await report(1, "success");
      expect((await record(1)).state).toBe("merged");
      expect((await record(3)).state).toBe("merged");
      for (const number of [1, 2, 3]) expect(onMain(number)).toBe(true);
    });
  });

  it("rebuilds only the lane of a failed PR", async () => {
    await createQueue();
    await submit(1, ["//app/api"], true);
    await submit(2, ["//docs"]);
    await submit(3, ["//app/api"]);
    const otherLane = await runOf(2);
    const behindFailure = await runOf(3);

    await report(1, "failure");
    expect((await record(1)).state).toBe("failed");
    expect((await run(behindFailure.id)).status).toBe("cancelled");
    const rebuilt = await runOf(3);
    expect(rebuilt.id).not.toBe(behindFailure.id);
    expect(rebuilt.dependentPrs).toEqual([]);
    expect(s.repo.fileAt(rebuilt.testBranchSha, "src/1.ts")).toBeUndefined();
    // The other lane's run was left alone and merges.
    expect(await runOf(2)).toMatchObject({ id: otherLane.id, status: "in_progress" });
    await report(2, "success");
    expect((await record(2)).state).toBe("merged");
  });

  it('joins every lane ahead when a PR impacts "ALL"', async () => {
    await createQueue();
    await submit(1, ["//app/api"]);
    await submit(2, ["//docs"]);
    await submit(3, "ALL");
    await submit(4, ["//tools"]);
    await submit(5, []);

    expect((await runOf(3)).dependentPrs).toEqual([1, 2]);
    expect((await runOf(3)).impactedTargets).toEqual(["ALL"]);
    // #4 shares nothing with #1 or #2, but depends on #3, which depends on both.
    expect((await runOf(4)).dependentPrs).toEqual([1, 2, 3]);
    // A PR that impacts nothing depends on nothing, not even on "ALL".
    expect((await runOf(5)).dependentPrs).toEqual([]);
  });

  it("asks for new targets after a push to the PR", async () => {
    await createQueue();
    s.repo.openPullRequest({ number: 1, title: "Change 1", author: "alice", files: { "src/1.ts": "1\n" } });
    const submitted = await s.api("submitPullRequest", { ...queue, pr: { number: 1 } });
    expect(submitted.body).toMatchObject({
      state: "not_ready",
      readiness: { requiresImpactedTargets: true, hasImpactedTargets: false },
    });
    await setTargets(1, ["//app"]);
    await s.settle();
    expect((await record(1)).state).toBe("testing");

    s.repo.pushToPullRequest(1, { "src/1.ts": "1 again\n" });
    await s.settle();
    expect((await record(1)).stateReason).toBe("pr_updated");
    const again = await s.api("submitPullRequest", { ...queue, pr: { number: 1 } });
    // The targets uploaded for the old head do not count for the new one.
    expect(again.body).toMatchObject({ state: "not_ready", readiness: { hasImpactedTargets: false } });
    await setTargets(1, ["//app"]);
    await s.settle();
    expect((await record(1)).state).toBe("testing");
  });
});
