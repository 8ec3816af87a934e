import { describe, expect, it } from "vitest";
import { aPr, aScenario } from "../support/queue-factories.ts";

describe("merging", () => {
  it("merges a passed PR only once the PRs it depends on merged", () => {
    const queue = aScenario({ concurrency: 2 }).submit(1, 2).pass(2);
    expect(queue.state.merging).toBeNull();

    queue.pass(1);
    expect(queue.commandsOf("merge_pull_request").map((merge) => merge.prNumber)).toEqual([1]);
    queue.mergeSucceeds();

    expect(queue.commandsOf("merge_pull_request").map((merge) => merge.prNumber)).toEqual([2]);
  });

  it("merges a group of passed PRs one by one, keeping the rest of the group in flight", () => {
    const queue = aScenario({ concurrency: 2 }).submit(1, 2).pass(2).pass(1);
    expect(queue.state.merging).toMatchObject({ id: "q-2:1", runId: "q-2", prNumbers: [1, 2] });

    queue.mergeSucceeds();

    expect(queue.state.merging).toMatchObject({ id: "q-2:2", prNumbers: [2] });
    expect(queue.commandsOf("merge_pull_request")).toEqual([
      expect.objectContaining({ prNumber: 2, expectedTargetSha: "main-1", key: "merge:q-2:2" }),
    ]);
  });

  it("finishes merging a group in flight when the queue is paused meanwhile", () => {
    const queue = aScenario({ concurrency: 2 }).submit(1, 2).pass(2).pass(1);
    queue.on({ type: "queue_updated", settings: {}, status: "paused" });

    queue.mergeSucceeds();

    expect(queue.commandsOf("merge_pull_request").map((merge) => merge.prNumber)).toEqual([2]);
  });

  it("completes a merge in flight as it started when the merge method changes meanwhile", () => {
    const queue = aScenario({ mergeMethod: "merge_commit", concurrency: 2 }).submit(1, 2).pass(2).pass(1);
    queue.on({ type: "queue_updated", settings: { mergeMethod: "squash" } });

    queue.mergeSucceeds();

    expect([queue.stateOf(1), queue.stateOf(2)]).toEqual(["merged", "merged"]);
    expect(queue.state.merging).toBeNull();
  });

  it("takes a head seen during a merge that then failed as a push from outside", () => {
    const queue = aScenario({ concurrency: 2 }).submit(1, 2).pass(1);
    queue.on({ type: "target_branch_moved", sha: "outside-1" });

    queue.on({
      type: "merge_failed",
      mergeId: "q-1:1",
      prNumber: 1,
      failure: { kind: "rejected", message: "no" },
    });

    expect(queue.state.target).toMatchObject({ headSha: "outside-1", basisSha: "outside-1" });
    expect(queue.runOf(2).baseSha).toBe("outside-1");
  });

  it("squash-merges each PR through the merge API with the tested head, checking the target head", () => {
    const queue = aScenario({ mergeMethod: "squash" }).submit(1);

    queue.pass(1);

    expect(queue.commandsOf("merge_pull_request")).toEqual([
      {
        type: "merge_pull_request",
        key: "merge:q-1:1",
        mergeId: "q-1:1",
        prNumber: 1,
        headSha: "head-1",
        method: "squash",
        expectedTargetSha: "main-0",
        commitTitle: "Change 1 (#1)",
      },
    ]);
  });

  it("rebase-merges with the rebase method", () => {
    const queue = aScenario({ mergeMethod: "rebase" }).submit(1);

    queue.pass(1);

    expect(queue.commandsOf("merge_pull_request")[0]?.method).toBe("rebase");
  });

  it("fast-forwards the target to the tested commit itself with merge_commit", () => {
    const queue = aScenario({ mergeMethod: "merge_commit" }).submit(1);

    queue.pass(1);

    expect(queue.commandsOf("fast_forward_target")).toEqual([
      {
        type: "fast_forward_target",
        key: "merge:q-1:1",
        mergeId: "q-1:1",
        targetBranch: "main",
        sha: "tested-q-1",
        expectedHeadSha: "main-0",
        prNumbers: [1],
      },
    ]);
  });

  it("fast-forwards over several passed PRs at once to the last tested commit", () => {
    const queue = aScenario({ mergeMethod: "merge_commit", concurrency: 2 }).submit(1, 2).pass(2);

    queue.pass(1);

    expect(queue.commandsOf("fast_forward_target")).toEqual([
      expect.objectContaining({ prNumbers: [1, 2], sha: "tested-q-2" }),
    ]);
  });

  it("records the target head after a merge and the PR as merged", () => {
    const queue = aScenario().submit(1).pass(1);

    queue.mergeSucceeds();

    expect(queue.pr(1)).toMatchObject({ state: "merged", stateReason: "merged", mergeIndex: 0 });
    expect(queue.state.target).toMatchObject({ headSha: "main-1", basisSha: "main-0", mergeCount: 1 });
    expect(queue.line).toEqual([]);
  });

  it("keeps one merge in flight at a time, in queue order", () => {
    const queue = aScenario({ concurrency: 2 }).submit(1, 2).pass(1).pass(2);

    expect(queue.state.merging?.prNumbers).toEqual([1]);
    queue.mergeSucceeds();
    expect(queue.commandsOf("merge_pull_request")).toEqual([
      expect.objectContaining({ prNumber: 2, expectedTargetSha: "main-1" }),
    ]);
  });

  it("fails a PR whose merge GitHub rejected with GitHub's reason, and rebuilds the runs behind", () => {
    const queue = aScenario({ concurrency: 2 }).submit(1, 2).pass(1);

    queue.on({
      type: "merge_failed",
      mergeId: "q-1:1",
      prNumber: 1,
      failure: { kind: "rejected", message: "Required review missing" },
    });

    expect(queue.pr(1)).toMatchObject({
      state: "failed",
      stateReason: "merge_rejected",
      stateDetail: "GitHub refused the merge: Required review missing",
    });
    expect(queue.runOf(2).dependsOn).toEqual([]);
  });

  it("cancels a PR with pr_updated when its head moved since its run", () => {
    const queue = aScenario().submit(1).pass(1);

    queue.on({ type: "merge_failed", mergeId: "q-1:1", prNumber: 1, failure: { kind: "pr_head_moved" } });

    expect(queue.pr(1)).toMatchObject({ state: "cancelled", stateReason: "pr_updated" });
  });

  it("rebuilds every run when the merge found the target moved outside the queue", () => {
    const queue = aScenario({ concurrency: 2 }).submit(1, 2).pass(1);

    queue.on({
      type: "merge_failed",
      mergeId: "q-1:1",
      prNumber: 1,
      failure: { kind: "target_moved", headSha: "x-1" },
    });

    expect(queue.pr(1).history.at(-2)?.reason).toBe("target_moved");
    expect(queue.runOf(1)).toMatchObject({ id: "q-3", baseSha: "x-1", basisSha: "x-1" });
  });

  it("merges nothing while the queue is paused, and merges on resume", () => {
    const queue = aScenario().submit(1);
    queue.on({ type: "queue_updated", settings: {}, status: "paused" });

    queue.pass(1);
    expect(queue.state.merging).toBeNull();

    queue.on({ type: "queue_updated", settings: {}, status: "running" });
    expect(queue.state.merging?.prNumbers).toEqual([1]);
  });

  it("ignores the result of another merge than the one in flight", () => {
    const queue = aScenario().submit(1).pass(1);

    const commands = queue.on({ type: "merge_succeeded", mergeId: "q-9:1", sha: "elsewhere" });

    expect(commands).toEqual([]);
    expect(queue.stateOf(1)).toBe("tests_passed");
  });

  it("applies a cancellation that arrives during the PR's merge only if the merge fails", () => {
    const merged = aScenario().submit(1).pass(1);
    merged.on({ type: "cancel_requested", prNumber: 1, reason: "cancelled_by_user" });
    expect(merged.stateOf(1)).toBe("tests_passed");
    merged.mergeSucceeds();
    expect(merged.stateOf(1)).toBe("merged");

    const refused = aScenario().submit(1).pass(1);
    refused.on({ type: "cancel_requested", prNumber: 1, reason: "pr_closed" });
    refused.on({
      type: "merge_failed",
      mergeId: "q-1:1",
      prNumber: 1,
      failure: { kind: "rejected", message: "closed" },
    });
    expect(refused.pr(1)).toMatchObject({ state: "cancelled", stateReason: "pr_closed" });
  });

  it("does not take the queue's own merge, closing the PR, for a merge outside the queue", () => {
    const queue = aScenario().submit(1).pass(1);

    queue.on({ type: "cancel_requested", prNumber: 1, reason: "merged_outside_queue" });
    queue.mergeSucceeds();

    expect(queue.pr(1)).toMatchObject({ state: "merged", stateReason: "merged" });
  });

  it("refuses to merge a run whose base the target does not hold, and rebuilds instead", () => {
    const queue = aScenario().submit(1);
    queue.on({ type: "queue_updated", settings: {}, status: "paused" });
    queue.pass(1);
    queue.state = { ...queue.state, target: { ...queue.state.target, basisSha: "rewritten" } };

    queue.on({ type: "queue_updated", settings: {}, status: "running" });

    expect(queue.commandsOf("merge_pull_request")).toEqual([]);
    expect(queue.pr(1).history.map((step) => step.reason)).toContain("target_moved");
    expect(queue.runOf(1).basisSha).toBe("rewritten");
  });

  it("lets a cancelled PR's passing run no longer vouch for the PRs ahead, which are tested again", () => {
    const queue = aScenario({ concurrency: 2, canOptimisticallyMerge: true }).submit(1, 2);
    queue.on({ type: "queue_updated", settings: {}, status: "paused" });
    queue.pass(2);
    expect(queue.pr(1).passingRunId).toBe("q-2");

    queue.on({ type: "cancel_requested", prNumber: 2, reason: "pr_updated" });

    expect(queue.pr(1)).toMatchObject({ state: "pending", stateReason: "passing_run_withdrawn" });
    expect(queue.state.runs["q-2"]?.branchDeleted).toBe(true);
  });

  it("starts a PR submitted behind a merge in flight on top of the merging PR", () => {
    const queue = aScenario().submit(1).pass(1);

    queue.on(aPr(2));

    expect(queue.runOf(2)).toMatchObject({ dependsOn: [1], baseSha: "tested-q-1" });
    queue.mergeSucceeds().pass(2);
    expect(queue.state.merging?.prNumbers).toEqual([2]);
  });

  it("does not fast-forward to a tested commit built on a PR that was merged by rebase after switching to merge_commit", () => {
    const queue = aScenario({ concurrency: 2, mergeMethod: "rebase" }).submit(1).createBranches();
    queue.submit(2).createBranches();
    expect(queue.runOf(2).baseSha).toBe(queue.runOf(1).testBranchSha);
    queue.pass(1).mergeSucceeds();
    queue.on({ type: "queue_updated", settings: { mergeMethod: "merge_commit" } });

    queue.pass(2);

    // The target holds #1 rebased (main-1), not run q-1's tested commit that run q-2 was built on.
    expect(queue.commandsOf("fast_forward_target")).toEqual([]);
    expect(queue.stateOf(2)).not.toBe("merged");
  });
});
