import { describe, expect, it } from "vitest";
import type { QueueSettings } from "../../src/queue/index.ts";
import { queueView } from "../../src/presentation/queue-views.ts";
import { targetsIntersect } from "../../src/queue/lanes.ts";
import type { QueueScenario } from "../support/queue-factories.ts";
import { aPr, aScenario } from "../support/queue-factories.ts";

type Targets = readonly string[] | "ALL";

/** Submits PRs in order, each with the impacted targets of its head (docs/queue.md#parallel-lanes), so each is ready at once. */
function submitIn(queue: QueueScenario, lanes: Record<number, Targets>, priority?: number): QueueScenario {
  for (const [number, targets] of Object.entries(lanes).map(
    ([key, value]) => [Number(key), value] as const,
  )) {
    queue.on(aPr(number, { priority: priority ?? null }));
    queue.on({ type: "impacted_targets_set", prNumber: number, headSha: `head-${number}`, targets });
    queue.now += 1;
  }
  return queue;
}

function parallel(settings: Partial<QueueSettings>, lanes: Record<number, Targets>): QueueScenario {
  return submitIn(aScenario({ mode: "parallel", ...settings }), lanes);
}

describe("parallel mode lanes", () => {
  it("intersects targets that share one, ALL with any non-empty list, and an empty list with nothing", () => {
    expect(targetsIntersect(["a", "b"], ["b", "c"])).toBe(true);
    expect(targetsIntersect(["a"], ["b"])).toBe(false);
    expect(targetsIntersect("ALL", ["z"])).toBe(true);
    expect(targetsIntersect("ALL", "ALL")).toBe(true);
    expect(targetsIntersect("ALL", [])).toBe(false);
    expect(targetsIntersect([], [])).toBe(false);
  });

  it("tests a PR on top of the PRs ahead in its lane only, and of their own lanes in turn", () => {
    const queue = parallel({ concurrency: 4 }, { 1: ["a"], 2: ["c"], 3: ["a", "b"], 4: ["b"] });

    expect(queue.runOf(2).dependsOn).toEqual([]);
    expect(queue.runOf(3).dependsOn).toEqual([1]);
    // #4 shares b with #3, which shares a with #1.
    expect(queue.runOf(4).dependsOn).toEqual([1, 3]);
  });

  it("starts the runs of disjoint lanes on the target head and merges each when it passes", () => {
    const queue = parallel({ concurrency: 2 }, { 1: ["a"], 2: ["b"] });
    expect(queue.runOf(2)).toMatchObject({ dependsOn: [], baseRunId: null, baseSha: "main-0" });

    queue.pass(2);
    expect(queue.commandsOf("merge_pull_request").map((merge) => merge.prNumber)).toEqual([2]);
    queue.mergeSucceeds();

    expect(queue.stateOf(2)).toBe("merged");
    expect(queue.stateOf(1)).toBe("testing");
    queue.pass(1);
    expect(queue.commandsOf("merge_pull_request")).toEqual([
      expect.objectContaining({ prNumber: 1, expectedTargetSha: "main-1" }),
    ]);
  });

  it("builds a run on the tested commit of the run ahead in its lane, unless another lane merged since", () => {
    const queue = parallel({ concurrency: 4 }, { 1: ["a"], 2: ["b"] }).createBranches();
    submitIn(queue, { 3: ["a"] });
    expect(queue.runOf(3)).toMatchObject({ dependsOn: [1], baseRunId: queue.runOf(1).id });

    queue.pass(2).mergeSucceeds();
    submitIn(queue, { 4: ["a"] });

    // The run of #1 lacks #2, which the target now holds: #4 is tested on the target through #1 and #3.
    expect(queue.runOf(4)).toMatchObject({ dependsOn: [1, 3], baseRunId: null, baseSha: "main-1" });
    expect(queue.commandsOf("create_test_branch")[0]?.prs.map((pr) => pr.number)).toEqual([1, 3, 4]);
  });

  it("waits for the PRs a passed PR depends on before merging it", () => {
    const queue = parallel({ concurrency: 3 }, { 1: ["a"], 2: ["b"], 3: ["a"] });

    queue.pass(3).pass(2).mergeAll();
    expect([queue.stateOf(2), queue.stateOf(3)]).toEqual(["merged", "tests_passed"]);

    queue.pass(1).mergeAll();
    expect(queue.pr(1).mergeIndex).toBeLessThan(queue.pr(3).mergeIndex as number);
  });

  it("joins every lane with ALL, and none with an empty list", () => {
    const queue = parallel({ concurrency: 4 }, { 1: ["a"], 2: "ALL", 3: ["b"], 4: [] });

    expect(queue.runOf(2).dependsOn).toEqual([1]);
    expect(queue.runOf(3).dependsOn).toEqual([1, 2]);
    expect(queue.runOf(4).dependsOn).toEqual([]);
  });

  it("rebuilds only the runs of the failed PR's lane", () => {
    const queue = parallel({ concurrency: 3 }, { 1: ["a"], 2: ["b"], 3: ["a"] });
    const otherLane = queue.runOf(2).id;

    queue.fail(1);

    expect(queue.stateOf(1)).toBe("failed");
    expect(queue.runOf(2)).toMatchObject({ id: otherLane, status: "in_progress" });
    expect(queue.runOf(3)).toMatchObject({ dependsOn: [], status: "in_progress" });
    expect(queue.pr(3).history.map((step) => step.reason)).toContain("pr_ahead_failed");
  });

  it("holds a failed PR in pending failure only for unresolved PRs of its lane", () => {
    const queue = parallel({ concurrency: 3 }, { 1: ["a"], 2: ["b"], 3: ["a"] });

    queue.fail(2).fail(3);

    expect(queue.pr(2)).toMatchObject({ state: "failed", stateReason: "tests_failed" });
    expect(queue.pr(3)).toMatchObject({ state: "pending_failure" });
    expect(queue.pr(3).stateDetail).toContain("waiting for #1 ahead of it");
  });

  it("lets a passing run vouch only for the failed PRs of its lane (optimistic merge)", () => {
    const optimistic = { concurrency: 3, canOptimisticallyMerge: true, pendingFailureDepth: 1 };
    const queue = parallel(optimistic, { 1: ["a"], 2: ["b"], 3: ["a"] });
    queue.fail(1);
    expect(queue.stateOf(1)).toBe("pending_failure");

    queue.pass(3);

    expect(queue.state.merging?.prNumbers).toEqual([1, 3]);
    expect(queue.pr(2)).toMatchObject({ state: "testing", stateReason: "test_started" });
  });

  it("fails a PR at once when only PRs of other lanes could be tested behind it", () => {
    const queue = parallel(
      { concurrency: 1, canOptimisticallyMerge: true, pendingFailureDepth: 1 },
      { 1: ["a"], 2: ["b"] },
    );

    queue.fail(1);

    expect(queue.stateOf(1)).toBe("failed");
    expect(queue.runOf(2).dependsOn).toEqual([]);
  });

  it("lets an urgent PR restart only the started PRs of its lane", () => {
    const queue = parallel({ concurrency: 3 }, { 1: ["a"], 2: ["b"] });
    const otherLane = queue.runOf(2).id;

    submitIn(queue, { 3: ["a"] }, 0);

    expect(queue.pr(1)).toMatchObject({ state: "testing", stateReason: "test_started" });
    expect(queue.pr(1).history.map((step) => step.reason)).toContain("urgent_pr_ahead");
    expect(queue.runOf(3).dependsOn).toEqual([]);
    expect(queue.runOf(1).dependsOn).toEqual([3]);
    expect(queue.runOf(2).id).toBe(otherLane);
  });

  it("batches the PRs of one lane together, never PRs of independent lanes", () => {
    const queue = aScenario({ mode: "parallel", batch: true, batchingMinSize: 2, concurrency: 2 }, "paused");
    submitIn(queue, { 1: ["a"], 2: ["b"], 3: ["a"], 4: ["b"] });

    queue.on({ type: "queue_updated", settings: {}, status: "running" });

    expect(queue.inFlight("main")).toEqual([
      [1, 3],
      [2, 4],
    ]);
  });

  it("bisects a failed batch on its lane's base, leaving the other lanes' runs alone", () => {
    const queue = aScenario({ mode: "parallel", batch: true, batchingMinSize: 2, concurrency: 3 }, "paused");
    submitIn(queue, { 1: ["a"], 2: ["b"], 3: ["a"], 4: ["b"], 5: ["a"], 6: ["a"] });
    queue.on({ type: "queue_updated", settings: {}, status: "running" });
    const otherLane = queue.runTesting(2, 4).id;

    queue.failRun(5, 6);

    expect(queue.runTesting(2, 4).id).toBe(otherLane);
    expect(queue.runTesting(5)).toMatchObject({ purpose: "bisection", dependsOn: [1, 3] });
    expect(queue.runTesting(6)).toMatchObject({ purpose: "bisection", dependsOn: [1, 3, 5] });
  });

  it("keeps a PR passed over by a batch ahead of the PRs of its own lane", () => {
    const settings = {
      mode: "parallel",
      batch: true,
      batchingMinSize: 3,
      batchingMaxWaitTimeMinutes: 0,
    } as const;
    const queue = aScenario({ ...settings, concurrency: 2 }, "paused");
    submitIn(queue, { 1: ["a"], 2: ["b"], 3: ["a", "b"] });

    queue.on({ type: "queue_updated", settings: {}, status: "running" });

    expect(queue.inFlight("main")).toEqual([[1], [2, 3]]);
    expect(queue.runOf(3).dependsOn).toEqual([1]);
  });

  it("merges a PR whose independent dependencies merged in another order than it tested them", () => {
    const queue = parallel({ concurrency: 3 }, { 1: ["a"], 2: ["b"], 3: ["a", "b"] });
    const joined = queue.runOf(3).id;
    expect(queue.runOf(3).dependsOn).toEqual([1, 2]);

    // #2 merges before #1: they share no target, so the target still holds what #3 was tested on.
    queue.pass(3).pass(2).mergeSucceeds().pass(1).mergeSucceeds();

    expect(queue.stateOf(1)).toBe("merged");
    expect(queue.stateOf(2)).toBe("merged");
    expect(queue.commandsOf("merge_pull_request")).toEqual([expect.objectContaining({ prNumber: 3 })]);
    expect(queue.state.prs[3]?.passingRunId).toBe(joined);
  });

  it("merges a batch's PR left behind when a run that did not hold it merged the rest of its batch", () => {
    const settings = {
      mode: "parallel",
      batch: true,
      batchingMinSize: 3,
      batchingMaxWaitTimeMinutes: 0,
      mergeMethod: "merge_commit",
    } as const;
    const queue = aScenario({ ...settings, concurrency: 2 }, "paused");
    // #2 and #3 join #1's batch through its "ALL"; #4 behind needs #1 and #3, not #2.
    submitIn(queue, { 1: "ALL", 2: ["a"], 3: ["b"] });
    queue.on({ type: "queue_updated", settings: {}, status: "running" });
    submitIn(queue, { 4: ["b"] });
    expect(queue.runOf(4).dependsOn).toEqual([1, 3]);

    queue.pass(4).pass(1).mergeAll();

    expect([1, 3, 4].map((number) => queue.stateOf(number))).toEqual(["merged", "merged", "merged"]);
    expect(queue.stateOf(2)).toBe("merged");
  });

  it("holds a small batch for the wait without holding back a full batch of another lane", () => {
    const settings = {
      mode: "parallel",
      batch: true,
      batchingMinSize: 2,
      batchingMaxWaitTimeMinutes: 10,
    } as const;
    const queue = aScenario({ ...settings, concurrency: 3 }, "paused");
    submitIn(queue, { 1: ["a"], 2: ["b"], 3: ["b"], 4: ["a", "c"] });
    queue.on({ type: "queue_updated", settings: {}, status: "running" });
    // #1 and #4 fill a batch in lane a; #2 and #3 in lane b: both start at once.
    expect(queue.inFlight("main")).toEqual([
      [1, 4],
      [2, 3],
    ]);

    submitIn(queue, { 5: ["a"], 6: ["d"], 7: ["d"] });
    // #5 waits alone for a second PR of its lane; #6 and #7 of lane d start meanwhile.
    expect(queue.inFlight("main")).toEqual([
      [1, 4],
      [2, 3],
      [6, 7],
    ]);
    expect(queue.stateOf(5)).toBe("pending");
  });

  it("lets a batch that waited its time start, on its lane's PRs ahead", () => {
    const settings = {
      mode: "parallel",
      batch: true,
      batchingMinSize: 2,
      batchingMaxWaitTimeMinutes: 10,
    } as const;
    const queue = aScenario({ ...settings, concurrency: 2 }, "paused");
    submitIn(queue, { 1: ["a"], 2: ["a"], 3: ["b"] });
    queue.on({ type: "queue_updated", settings: {}, status: "running" });
    expect(queue.inFlight("main")).toEqual([[1, 2]]);

    queue.tick(10);
    expect(queue.inFlight("main")).toEqual([[1, 2], [3]]);
    expect(queue.runOf(3).dependsOn).toEqual([]);
  });

  it("fast-forwards merge_commit while no other lane merged, else merges through the API with a merge commit", () => {
    const queue = parallel({ mergeMethod: "merge_commit", concurrency: 3 }, { 1: ["a"], 2: ["b"], 3: ["a"] });

    queue.pass(1);
    expect(queue.commandsOf("fast_forward_target")).toEqual([
      expect.objectContaining({ prNumbers: [1], sha: queue.runOf(1).testBranchSha }),
    ]);
    queue.mergeSucceeds().pass(2);
    expect(queue.commandsOf("merge_pull_request")).toEqual([
      expect.objectContaining({
        prNumber: 2,
        method: "merge",
        expectedTargetSha: "main-1",
        commitTitle: "Merge #2: Change 2",
      }),
    ]);
    queue.mergeSucceeds().pass(3);

    // #3 was tested on #1 without #2, which the target now holds: it too is merged, not fast-forwarded to.
    expect(queue.commandsOf("fast_forward_target")).toEqual([]);
    expect(queue.commandsOf("merge_pull_request")).toEqual([
      expect.objectContaining({ prNumber: 3, method: "merge", expectedTargetSha: "main-2" }),
    ]);
  });

  it("tests a PR again when it passed without a PR of another lane merged since and the queue is single again", () => {
    const queue = parallel({ concurrency: 2 }, { 1: ["a"], 2: ["b"] });
    queue.on({ type: "queue_updated", settings: { mode: "single" } });
    queue.pass(1).pass(2);
    expect(queue.state).toMatchObject({ settings: { mode: "single" }, merging: { prNumbers: [1] } });

    queue.mergeSucceeds();

    expect(queue.pr(2).history.map((step) => step.reason)).toContain("target_moved");
    expect(queue.runOf(2)).toMatchObject({ dependsOn: [], baseSha: "main-1", status: "in_progress" });
  });

  it("switches from single to parallel mode and back with runs in flight, losing no PR", () => {
    const queue = submitIn(aScenario({ concurrency: 2 }), { 1: ["a"], 2: ["b"] });
    expect(queue.runOf(2).dependsOn).toEqual([1]);

    queue.on({ type: "queue_updated", settings: { mode: "parallel" } });
    submitIn(queue, { 3: ["b"] });
    expect(queueView(queue.state).state).toBe("switching_modes");
    queue.pass(1).mergeAll().pass(2);

    expect(queueView(queue.state)).toMatchObject({ state: "running", mode: "parallel" });
    expect(queue.runOf(3).dependsOn).toEqual([2]);
    submitIn(queue, { 4: ["a"] });
    expect(queue.runOf(4).dependsOn).toEqual([]);

    queue.on({ type: "queue_updated", settings: { mode: "single" } });
    expect(queueView(queue.state).state).toBe("switching_modes");
    queue.passMainLine();

    expect(queueView(queue.state)).toMatchObject({ state: "running", mode: "single" });
    expect([1, 2, 3, 4].map((number) => queue.stateOf(number))).toEqual([
      "merged",
      "merged",
      "merged",
      "merged",
    ]);
  });
});
