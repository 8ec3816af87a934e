import { describe, expect, it } from "vitest";
import { aScenario } from "../support/queue-factories.ts";

describe("failures and pending failure", () => {
  it("fails a PR with nothing ahead at once, and rebuilds the runs behind without it", () => {
    const queue = aScenario({ concurrency: 2 }).submit(1, 2);

    queue.fail(1);

    expect(queue.pr(1)).toMatchObject({ state: "failed", stateReason: "tests_failed" });
    expect(queue.pr(2).history.map((step) => step.reason)).toContain("pr_ahead_failed");
    expect(queue.runOf(2)).toMatchObject({ status: "in_progress", dependsOn: [] });
  });

  it("makes a failed PR wait for the PR ahead before failing", () => {
    const queue = aScenario({ concurrency: 2 }).submit(1, 2);

    queue.fail(2);

    expect(queue.pr(2)).toMatchObject({ state: "pending_failure", stateReason: "tests_failed" });
    expect(queue.pr(2).stateDetail).toContain("waiting for #1 ahead of it before failing");
  });

  it("fails a PR in pending failure once the PR ahead passes", () => {
    const queue = aScenario({ concurrency: 2 }).submit(1, 2).fail(2);

    queue.pass(1);

    expect(queue.pr(2)).toMatchObject({ state: "failed", stateReason: "tests_failed" });
  });

  it("retests a PR in pending failure without the PR ahead when that one fails", () => {
    const queue = aScenario({ concurrency: 2 }).submit(1, 2).fail(2);

    queue.fail(1);

    expect(queue.pr(2).stateReason).toBe("test_started");
    expect(queue.pr(2).history.map((step) => step.state)).toEqual([
      "pending",
      "testing",
      "pending_failure",
      "pending",
      "testing",
    ]);
    expect(queue.runOf(2).dependsOn).toEqual([]);
  });

  it("with a depth and optimistic merging, keeps a failed PR waiting for the runs behind it", () => {
    const queue = aScenario({ concurrency: 2, canOptimisticallyMerge: true, pendingFailureDepth: 1 }).submit(
      1,
      2,
    );

    queue.fail(1);

    expect(queue.stateOf(1)).toBe("pending_failure");
    expect(queue.pr(1).stateDetail).toContain("waiting for up to 1 PRs behind it");
  });

  it("merges a PR in pending failure together with a run behind it that passed (optimistic merge)", () => {
    const queue = aScenario({
      concurrency: 2,
      canOptimisticallyMerge: true,
      pendingFailureDepth: 1,
      mergeMethod: "merge_commit",
    })
      .submit(1, 2)
      .fail(1);

    queue.pass(2);

    expect(queue.pr(1)).toMatchObject({
      state: "tests_passed",
      stateReason: "vouched_by_run_behind",
      passingRunId: "q-2",
    });
    expect(queue.commandsOf("fast_forward_target")).toEqual([
      expect.objectContaining({ prNumbers: [1, 2], sha: queue.runOf(2).testBranchSha }),
    ]);
    queue.mergeSucceeds();
    expect([queue.stateOf(1), queue.stateOf(2)]).toEqual(["merged", "merged"]);
  });

  it("fails a PR once its depth of runs behind failed too, and retests those without it", () => {
    const queue = aScenario({ concurrency: 2, canOptimisticallyMerge: true, pendingFailureDepth: 1 })
      .submit(1, 2)
      .fail(1);

    queue.fail(2);

    expect(queue.pr(1)).toMatchObject({ state: "failed", stateReason: "tests_failed" });
    expect(queue.stateOf(2)).toBe("testing");
    expect(queue.runOf(2).dependsOn).toEqual([]);
  });

  it("counts toward the depth runs that start behind the failed PR after it failed", () => {
    const queue = aScenario({ concurrency: 1, canOptimisticallyMerge: true, pendingFailureDepth: 1 })
      .submit(1, 2)
      .fail(1);

    expect(queue.runOf(2).dependsOn).toEqual([1]);
    queue.pass(2);

    expect(queue.stateOf(1)).toBe("tests_passed");
  });

  it("counts a run behind that failed before the PR's own run did toward its depth, and fails it at once", () => {
    // #3 waits behind, so a run on top of #1 could still start: only counting q-2 ends #1's wait.
    const queue = aScenario({ concurrency: 2, canOptimisticallyMerge: true, pendingFailureDepth: 1 }).submit(
      1,
      2,
      3,
    );
    queue.fail(2);
    expect(queue.pr(2).stateDetail).toContain("waiting for #1 ahead of it before failing");

    queue.fail(1);

    expect(queue.pr(1)).toMatchObject({ state: "failed", stateReason: "tests_failed" });
    expect(queue.runOf(2)).toMatchObject({ status: "in_progress", dependsOn: [] });
    expect(queue.runOf(3)).toMatchObject({ status: "in_progress", dependsOn: [2] });
  });

  it("fails a PR at once without optimistic merging, whatever the depth", () => {
    const queue = aScenario({ concurrency: 2, canOptimisticallyMerge: false, pendingFailureDepth: 2 }).submit(
      1,
      2,
    );

    queue.fail(1);

    expect(queue.stateOf(1)).toBe("failed");
  });

  it("fails a PR rather than wait when nothing behind it can test on top of it", () => {
    const queue = aScenario({ canOptimisticallyMerge: true, pendingFailureDepth: 3 }).submit(1);

    queue.fail(1);

    expect(queue.stateOf(1)).toBe("failed");
  });

  it("with optimistic merging, lets a passing run vouch for the PRs ahead still testing, whose runs stop", () => {
    const queue = aScenario({ concurrency: 2, canOptimisticallyMerge: true }).submit(1, 2);

    queue.pass(2);

    expect(queue.pr(1)).toMatchObject({ state: "tests_passed", passingRunId: "q-2" });
    expect(queue.state.runs["q-1"]).toMatchObject({ status: "cancelled", endReason: "superseded" });
  });

  it("without optimistic merging, makes a passed PR wait for the PR ahead to pass and merge", () => {
    const queue = aScenario({ concurrency: 2 }).submit(1, 2);

    queue.pass(2);

    expect(queue.stateOf(1)).toBe("testing");
    expect(queue.stateOf(2)).toBe("tests_passed");
    expect(queue.state.merging).toBeNull();
  });

  it("treats a timed out run like a failed one: the runs behind are rebuilt without its PR", () => {
    const queue = aScenario({ concurrency: 2, testingTimeoutMinutes: 10 }).submit(1);
    queue.advance(5).submit(2);

    queue.advance(6).on({ type: "tick" });

    expect(queue.stateOf(1)).toBe("failed");
    expect(queue.pr(1).stateReason).toBe("timeout");
    expect(queue.pr(2).history.map((step) => step.reason)).toContain("pr_ahead_failed");
    expect(queue.runOf(2).dependsOn).toEqual([]);
  });
});
