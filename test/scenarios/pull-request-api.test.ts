// The PR endpoints (docs/api.md#merge-queue-endpoints) against a live queue: records that tell the truth at every moment.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { repoRef as repo, type Scenario, startScenario } from "../support/queue-scenario.ts";

describe("pull request endpoints", () => {
  let s: Scenario;
  beforeEach(async () => {
    s = await startScenario();
    await s.api("createQueue", { repo, targetBranch: "main", requiredStatuses: ["build", "deploy-preview"] });
    s.repo.openPullRequest({
      number: 1,
      title: "Change 1",
      author: "alice",
      files: { "src/one.ts": "one\n" },
    });
  });
  afterEach(async () => {
    await s.close();
  });

  const target = { repo, targetBranch: "main", pr: { number: 1 } };

  it("submit returns the full record, with noBatch, readiness and a sentence saying where the PR is", async () => {
    const { status, body } = await s.api("submitPullRequest", { ...target, noBatch: true, priority: 7 });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      prNumber: 1,
      prTitle: "Change 1",
      prAuthor: "alice",
      prBaseBranch: "main",
      prSha: s.repo.pullRequest(1).headSha,
      priorityValue: 7,
      priorityName: "7",
      noBatch: true,
      skipTheLine: false,
      forceEnqueued: false,
      isCurrentlySubmittedToQueue: true,
      readiness: {
        doesBaseBranchMatch: true,
        providerMergeability: "mergeable",
        requiresImpactedTargets: false,
        hasImpactedTargets: false,
      },
    });
    expect(body).not.toHaveProperty("usedDefaultPriorityName");
    expect(body.stateDetail).toMatch(/\.$/);
    expect(Date.parse(body.stateChangedAt)).toBe(s.clock.now);
  });

  it("the test run record lists check suites and commit statuses as GitHub reported them", async () => {
    await s.api("submitPullRequest", target);
    await s.settle();
    const pr = (await s.api("getSubmittedPullRequest", target)).body;
    const run = (
      await s.api("getMergeQueueTestingDetails", { repo, targetBranch: "main", testRunId: pr.testRunId })
    ).body;
    s.repo.reportCheckRun(run.testBranchSha, "build", { status: "in_progress" });
    s.repo.reportStatus(run.testBranchSha, "deploy-preview", "pending", {
      targetUrl: "https://preview.example/1",
    });
    await s.settle();
    const details = (
      await s.api("getMergeQueueTestingDetails", { repo, targetBranch: "main", testRunId: pr.testRunId })
    ).body;
    expect(details).toMatchObject({
      status: "in_progress",
      testBranchSha: run.testBranchSha,
      checkSuites: [
        { checkRuns: [expect.objectContaining({ name: "build", status: "in_progress", conclusion: null })] },
      ],
      statusChecks: [{ context: "deploy-preview", state: "pending", url: "https://preview.example/1" }],
      dependentPrs: [],
    });
    expect(Date.parse(details.createdAt)).toBe(s.clock.now);
    const unknown = await s.api("getMergeQueueTestingDetails", {
      repo,
      targetBranch: "main",
      testRunId: "nope",
    });
    expect(unknown).toMatchObject({ status: 404, body: { code: "test_run_not_found" } });
  });

  it("restart tests the PR again on a new run; a finished PR cannot be restarted", async () => {
    await s.api("submitPullRequest", target);
    await s.settle();
    const first = (await s.api("getSubmittedPullRequest", target)).body.testRunId;
    const restarted = await s.api("restartTestsOnPullRequest", target);
    expect(restarted.status).toBe(200);
    await s.settle();
    const second = (await s.api("getSubmittedPullRequest", target)).body;
    expect(second.state).toBe("testing");
    expect(second.testRunId).not.toBe(first);

    await s.api("cancelPullRequest", target);
    const finished = await s.api("restartTestsOnPullRequest", target);
    expect(finished).toMatchObject({ status: 409, body: { code: "pull_request_finished" } });
  });

  it("cancel answers the cancelled record, and again 200 for a PR already cancelled", async () => {
    await s.api("submitPullRequest", target);
    const cancelled = await s.api("cancelPullRequest", target);
    expect(cancelled).toMatchObject({
      status: 200,
      body: { state: "cancelled", stateReason: "cancelled_by_user", isCurrentlySubmittedToQueue: false },
    });
    expect((await s.api("cancelPullRequest", target)).status).toBe(200);
    const again = await s.api("submitPullRequest", target);
    expect(again.body.state).not.toBe("cancelled");
    expect(again.body.id).not.toBe(cancelled.body.id);
  });

  it("impacted targets can be set before the PR is submitted and count toward its readiness", async () => {
    const sha = s.repo.pullRequest(1).headSha;
    const set = await s.api("setImpactedTargets", {
      ...target,
      pr: { number: 1, sha },
      impactedTargets: ["//a", "//b", "//a"],
    });
    expect(set).toEqual({ status: 200, body: { prNumber: 1, prSha: sha, impactedTargets: 2 } });
    const all = await s.api("setImpactedTargets", {
      ...target,
      pr: { number: "1", sha },
      impactedTargets: "ALL",
    });
    expect(all.body.impactedTargets).toBe("ALL");
    const submitted = await s.api("submitPullRequest", target);
    expect(submitted.body.readiness.hasImpactedTargets).toBe(true);
    const bad = await s.api("setImpactedTargets", {
      ...target,
      pr: { number: 1, sha: "xyz" },
      impactedTargets: [""],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([
      { path: "pr.sha", message: 'must match pattern "^[0-9a-fA-F]{40}$"' },
      { path: "impactedTargets.0", message: "must NOT have fewer than 1 characters" },
    ]);
    const wrongType = await s.api("setImpactedTargets", {
      ...target,
      pr: { number: 1, sha },
      impactedTargets: 5,
    });
    expect(wrongType.body.errors).toEqual([
      { path: "impactedTargets", message: 'must be array, or must be "ALL"' },
    ]);
  });
});

describe("a queue that let go of finished PRs", () => {
  it("still answers for them from its history", async () => {
    const s = await startScenario();
    try {
      await s.api("createQueue", { repo, targetBranch: "main", requiredStatuses: ["ci"] });
      for (const n of [1, 2]) {
        s.repo.openPullRequest({
          number: n,
          title: `Change ${n}`,
          author: "alice",
          files: { [`src/${n}.ts`]: "x" },
        });
      }
      const target = { repo, targetBranch: "main", pr: { number: 1 } };
      await s.api("submitPullRequest", target);
      await s.settle();
      const pr = (await s.api("getSubmittedPullRequest", target)).body;
      const run = (
        await s.api("getMergeQueueTestingDetails", { repo, targetBranch: "main", testRunId: pr.testRunId })
      ).body;
      s.repo.reportStatus(run.testBranchSha, "ci", "success");
      await s.settle();

      // A day and more later, the next step lets #1 and its run go from the queue's state.
      s.clock.now += 25 * 60 * 60 * 1000;
      await s.api("submitPullRequest", { ...target, pr: { number: 2 } });
      const state = await s.server.engine.read(
        (await s.store.db.selectFrom("queues").select("id").executeTakeFirstOrThrow()).id,
      );
      expect(state?.prs[1]).toBeUndefined();
      expect(state?.runs[pr.testRunId]).toBeUndefined();

      expect((await s.api("getSubmittedPullRequest", target)).body).toMatchObject({
        prNumber: 1,
        state: "merged",
      });
      expect((await s.api("cancelPullRequest", target)).body.code).toBe("pull_request_finished");
      expect((await s.api("restartTestsOnPullRequest", target)).body.code).toBe("pull_request_finished");
      const details = await s.api("getMergeQueueTestingDetails", {
        repo,
        targetBranch: "main",
        testRunId: pr.testRunId,
      });
      expect(details.body).toMatchObject({ id: pr.testRunId, status: "succeeded" });
    } finally {
      await s.close();
    }
  });
});
