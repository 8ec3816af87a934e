import { describe, expect, it } from "vitest";
import { hasNonTerminalPullRequests, nextDeadline, pullRequestsToRecheck } from "../../src/queue/index.ts";
import {
  enqueuedPullRequests,
  pullRequestView,
  queueView,
  testRunView,
} from "../../src/presentation/queue-views.ts";
import { aCheckRun, aCommitStatus, aPr, aScenario, MINUTE, T0 } from "../support/queue-factories.ts";

describe("views for the API", () => {
  it("shows the PR record with readiness, reason, run and position", () => {
    const queue = aScenario({ concurrency: 2 }).submit(1, 2);

    expect(pullRequestView(queue.state, 2)).toEqual({
      id: "sub-2",
      prNumber: 2,
      prTitle: "Change 2",
      prSha: "head-2",
      prBaseBranch: "main",
      prAuthor: "octocat",
      stateChangedAt: new Date(T0 + 1).toISOString(),
      priorityValue: 100,
      priorityName: "medium",
      skipTheLine: false,
      noBatch: false,
      usedDefaultPriorityName: "medium",
      state: "testing",
      stateReason: "test_started",
      stateDetail: "Testing in run q-2 on top of #1.",
      forceEnqueued: false,
      isCurrentlySubmittedToQueue: true,
      readiness: {
        doesBaseBranchMatch: true,
        providerMergeability: "mergeable",
        requiresImpactedTargets: false,
        hasImpactedTargets: false,
      },
      testRunId: "q-2",
      position: 2,
    });
  });

  it("shows a terminal PR as no longer submitted", () => {
    const queue = aScenario().submit(1).fail(1);

    expect(pullRequestView(queue.state, 1)).toMatchObject({
      isCurrentlySubmittedToQueue: false,
      position: null,
    });
    expect(pullRequestView(queue.state, 9)).toBeNull();
  });

  it("lists the enqueued PRs in queue order, and only those", () => {
    const queue = aScenario({}, "paused").submit(1, 2);
    queue.on(aPr(3, { priority: 0 }));
    queue.on({ type: "cancel_requested", prNumber: 1, reason: "pr_closed" });

    expect(enqueuedPullRequests(queue.state).map((pr) => [pr.prNumber, pr.priorityName])).toEqual([
      [3, "urgent"],
      [2, "medium"],
    ]);
    expect(hasNonTerminalPullRequests(queue.state)).toBe(true);
  });

  it("tells an empty queue", () => {
    const queue = aScenario().submit(1).pass(1).mergeSucceeds();

    expect(hasNonTerminalPullRequests(queue.state)).toBe(false);
  });

  it("shows the queue record with its settings and bisectionConcurrency following concurrency", () => {
    const queue = aScenario({ concurrency: 3 });

    expect(queueView(queue.state)).toMatchObject({
      state: "running",
      branch: "main",
      concurrency: 3,
      bisectionConcurrency: 3,
      requiredStatuses: ["ci"],
      mergeMethod: "squash",
      enqueuedPullRequests: [],
    });
  });

  it("shows the test run record with what was tested and reported", () => {
    const queue = aScenario({ requiredStatuses: ["ci", "lint"], concurrency: 2 }).submit(1, 2);
    queue.report(2, aCheckRun({ status: "in_progress", conclusion: null }));
    queue.report(2, aCommitStatus({ name: "lint", state: "pending" }));

    expect(testRunView(queue.state, "q-2", (number) => `https://github.com/acme/app/pull/${number}`)).toEqual(
      {
        id: "q-2",
        requiredStatuses: ["ci", "lint"],
        requiredStatusesSource: "merge_instance",
        testBranch: "mq/main/q-2",
        testBranchSha: "tested-q-2",
        checkSuites: [
          {
            checkRuns: [{ name: "ci", url: "https://ci.example/1", status: "in_progress", conclusion: null }],
          },
        ],
        statusChecks: [{ context: "lint", url: "https://ci.example/s/1", state: "pending" }],
        testedPullRequests: [{ prNumber: 2, prUrl: "https://github.com/acme/app/pull/2", title: "Change 2" }],
        createdAt: new Date(T0 + 1).toISOString(),
        status: "in_progress",
        dependentPrs: [1],
        purpose: "main",
        followsUpRunId: null,
        knownFlakyFailures: [],
        flakyFailure: false,
      },
    );
    expect(testRunView(queue.state, "q-404", String)).toBeNull();
  });

  describe("impacted targets of a test run", () => {
    function aParallelQueue(targets: Record<number, readonly string[] | "ALL">) {
      const queue = aScenario({ mode: "parallel", concurrency: 4 });
      for (const [number, impacted] of Object.entries(targets)) {
        queue.submit(Number(number));
        queue.on({
          type: "impacted_targets_set",
          prNumber: Number(number),
          headSha: `head-${number}`,
          targets: impacted,
        });
      }
      return queue;
    }

    it("shows the union over the run and its dependencies, and the tested PRs' own", () => {
      const queue = aParallelQueue({ 1: ["//app/api"], 2: ["//app/api", "//app/web"] });

      expect(testRunView(queue.state, queue.runOf(2).id, String)).toMatchObject({
        dependentPrs: [1],
        impactedTargets: ["//app/api", "//app/web"],
        impactedTargetsForTestedPrs: ["//app/api", "//app/web"],
      });
      expect(testRunView(queue.state, queue.runOf(1).id, String)).toMatchObject({
        dependentPrs: [],
        impactedTargets: ["//app/api"],
        impactedTargetsForTestedPrs: ["//app/api"],
      });
    });

    it('shows ["ALL"] when a PR of the run impacts every target', () => {
      const queue = aParallelQueue({ 1: "ALL", 2: ["//app/web"], 3: ["//app/web", "//lib"] });

      expect(testRunView(queue.state, queue.runOf(3).id, String)).toMatchObject({
        dependentPrs: [1, 2],
        impactedTargets: ["ALL"],
        impactedTargetsForTestedPrs: ["//app/web", "//lib"],
      });
    });

    it("leaves them out unless every PR of the run had targets for the head it was tested at", () => {
      const queue = aScenario({ concurrency: 2 }).submit(1, 2);
      queue.on({ type: "impacted_targets_set", prNumber: 2, headSha: "head-2", targets: ["//app"] });
      queue.on({ type: "impacted_targets_set", prNumber: 1, headSha: "old-head", targets: ["//app"] });

      const view = testRunView(queue.state, queue.runOf(2).id, String);

      expect(view).not.toHaveProperty("impactedTargets");
      expect(view).not.toHaveProperty("impactedTargetsForTestedPrs");
    });
  });

  it("names the next testing timeout for the shell's timer", () => {
    const queue = aScenario({ testingTimeoutMinutes: 20, concurrency: 2 }).submit(1, 2);

    expect(nextDeadline(queue.state)).toBe(T0 + 20 * MINUTE);
    expect(nextDeadline(aScenario().state)).toBeNull();
  });

  it("lists the queued PRs that are not ready, for the shell to read again", () => {
    const queue = aScenario({}, "paused");
    queue.on(aPr(1, { mergeability: "in_progress" }));
    queue.on(aPr(2));
    queue.on(aPr(3, { mergeability: "unspecified" }));
    queue.on(aPr(4, { mergeability: "not_mergeable" }));

    expect(pullRequestsToRecheck(queue.state)).toEqual([1, 3, 4]);
  });
});
