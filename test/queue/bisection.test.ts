import { describe, expect, it } from "vitest";
import type { QueueSettings } from "../../src/queue/index.ts";
import { aScenario } from "../support/queue-factories.ts";

/** A queue testing PRs in batches of `size`, merging by fast-forward so merged groups are easy to see. */
function batchesOf(size: number, settings: Partial<QueueSettings> = {}) {
  return aScenario({ batch: true, batchingMinSize: size, mergeMethod: "merge_commit", ...settings });
}

const skipRedundant = { optimizationMode: "bisection_skip_redundant_tests" } as const;

describe("bisection of a failed batch (contract 5.6)", () => {
  it("puts the PRs of a failed batch in pending failure, saying they are bisected", () => {
    const queue = batchesOf(4, { bisectionConcurrency: 1 }).submit(1, 2, 3, 4);

    queue.fail(1);

    const why = "Run q-1 tested #1, #2, #3, #4 together; they are bisected to find the PRs that failed it.";
    for (const number of [3, 4]) {
      expect(queue.pr(number)).toMatchObject({ state: "pending_failure", stateReason: "tests_failed" });
      expect(queue.pr(number).stateDetail).toContain(why);
    }
    expect(queue.pr(1).history.map((step) => step.state)).toEqual([
      "pending",
      "testing",
      "pending_failure",
      "testing",
    ]);
    expect(queue.pr(1).history[2]?.detail).toContain(why);
  });

  it("tests the halves of a failed batch of 4, the second on top of the first, in the bisection pool", () => {
    const queue = batchesOf(4, { concurrency: 2 }).submit(1, 2, 3, 4);

    queue.fail(1);

    expect(queue.testedSince(1)).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(queue.runTesting(1, 2)).toMatchObject({ purpose: "bisection", failedRunId: "q-1", dependsOn: [] });
    expect(queue.runTesting(3, 4)).toMatchObject({
      purpose: "bisection",
      failedRunId: "q-1",
      dependsOn: [1, 2],
    });
    expect(queue.pr(3).stateDetail).toBe(
      "Bisecting run q-1, which failed with 4 PRs: testing in run q-3 with #3, #4 on top of #1, #2.",
    );
  });

  it("merges the PRs of a bisection run as the failed batch's branch did, so the same PRs make the same commits", () => {
    const queue = batchesOf(4, { concurrency: 2 }).submit(1, 2, 3, 4);
    const batchMerges = queue.commandsOf("create_test_branch")[0]?.prs;

    queue.fail(1);

    expect(queue.commandsOf("create_test_branch").map((command) => command.prs)).toEqual([
      batchMerges?.slice(0, 2),
      batchMerges,
    ]);
  });

  it("runs no more bisection runs at once than bisectionConcurrency, whatever the concurrency", () => {
    const queue = batchesOf(4, { concurrency: 3, bisectionConcurrency: 1 }).submit(1, 2, 3, 4);

    queue.fail(1);

    expect(queue.testedSince(1)).toEqual([[1, 2]]);
    queue.passRun(1, 2);
    expect(queue.testedSince(2)).toEqual([[3, 4]]);
  });

  it.each([
    { concurrency: 1, runs: [[1, 2]] },
    {
      concurrency: 2,
      runs: [
        [1, 2],
        [3, 4],
      ],
    },
  ])(
    "with bisectionConcurrency null, runs as many bisection runs as concurrency ($concurrency)",
    ({ concurrency, runs }) => {
      const queue = batchesOf(4, { concurrency, bisectionConcurrency: null }).submit(1, 2, 3, 4);

      queue.fail(1);

      expect(queue.testedSince(1)).toEqual(runs);
    },
  );

  it("keeps the main line testing the next batch, bounded by concurrency apart from the bisection pool", () => {
    const queue = batchesOf(2, { concurrency: 1, bisectionConcurrency: 2 }).submit(1, 2, 3, 4, 5, 6);

    queue.fail(1);

    expect(queue.testedSince(1)).toEqual([[1], [2], [3, 4]]);
    expect(queue.runTesting(3, 4)).toMatchObject({ dependsOn: [1, 2] });
    expect(queue.runTesting(3, 4).purpose).toBeUndefined();
    expect([5, 6].map((number) => queue.stateOf(number))).toEqual(["pending", "pending"]);
  });

  it("merges the innocent PRs of a failed batch and fails the culprit", () => {
    const queue = batchesOf(4, { concurrency: 2 }).submit(1, 2, 3, 4);
    queue.fail(1).passRun(1, 2).failRun(3, 4).mergeAll();

    queue.passRun(3).failRun(4).mergeAll();

    expect([1, 2, 3].map((number) => queue.stateOf(number))).toEqual(["merged", "merged", "merged"]);
    expect(queue.pr(4)).toMatchObject({ state: "failed", stateReason: "tests_failed" });
    expect(queue.runOf(4)).toMatchObject({ purpose: "bisection", status: "failed", dependsOn: [1, 2, 3] });
  });

  it("makes a culprit found by bisection wait for the PRs ahead of it still under test", () => {
    const queue = batchesOf(4, { concurrency: 2 }).submit(1, 2, 3, 4);
    queue.fail(1).passRun(1, 2).failRun(3, 4);

    queue.failRun(4);

    expect(queue.pr(4)).toMatchObject({ state: "pending_failure", stateReason: "tests_failed" });
    expect(queue.pr(4).stateDetail).toContain("waiting for #3 ahead of it before failing");
  });

  it("splits a failed batch of 8 recursively until the culprit is alone, and merges the 7 others", () => {
    const queue = batchesOf(8, { concurrency: 2 }).submit(1, 2, 3, 4, 5, 6, 7, 8);
    queue.fail(1);
    expect(queue.testedSince(1)).toEqual([
      [1, 2, 3, 4],
      [5, 6, 7, 8],
    ]);

    queue.passRun(1, 2, 3, 4).failRun(5, 6, 7, 8).mergeAll();
    expect(queue.testedSince(3)).toEqual([
      [5, 6],
      [7, 8],
    ]);
    expect(queue.runTesting(7, 8)).toMatchObject({ failedRunId: "q-3", dependsOn: [1, 2, 3, 4, 5, 6] });

    queue.passRun(5, 6).failRun(7, 8).mergeAll();
    expect(queue.testedSince(5)).toEqual([[7], [8]]);

    queue.passRun(7).failRun(8).mergeAll();
    expect([1, 2, 3, 4, 5, 6, 7].map((number) => queue.stateOf(number))).toEqual(Array(7).fill("merged"));
    expect(queue.stateOf(8)).toBe("failed");
  });

  it("lets a passing run behind vouch for a batch under bisection (optimistic merge): they merge together", () => {
    const queue = batchesOf(2, { concurrency: 2, canOptimisticallyMerge: true }).submit(1, 2, 3, 4);
    queue.fail(1);
    const bisectionRuns = [queue.runTesting(1), queue.runTesting(2)];

    queue.passRun(3, 4);

    expect(queue.pr(1)).toMatchObject({ state: "tests_passed", stateReason: "vouched_by_run_behind" });
    for (const run of bisectionRuns) {
      expect(queue.state.runs[run.id]).toMatchObject({ status: "cancelled", endReason: "superseded" });
    }
    expect(queue.commandsOf("fast_forward_target")).toEqual([
      expect.objectContaining({ prNumbers: [1, 2, 3, 4], sha: queue.runOf(3).testBranchSha }),
    ]);
    queue.mergeSucceeds();
    expect([1, 2, 3, 4].map((number) => queue.stateOf(number))).toEqual(Array(4).fill("merged"));
  });
});

describe("bisection_skip_redundant_tests (contract 5.6)", () => {
  it("does not test [3, 4] on top of [1, 2] once [1, 2] passed and [1, 2, 3, 4] failed: it splits [3, 4]", () => {
    const queue = batchesOf(4, { ...skipRedundant, bisectionConcurrency: 1 }).submit(1, 2, 3, 4);
    queue.fail(1);
    expect(queue.testedSince(1)).toEqual([[1, 2]]);

    queue.passRun(1, 2);

    expect(queue.testedSince(2)).toEqual([[3]]);
    expect(queue.runTesting(3)).toMatchObject({ purpose: "bisection", dependsOn: [1, 2] });
  });

  it("without it, tests [3, 4] again on top of [1, 2]", () => {
    const queue = batchesOf(4, { bisectionConcurrency: 1 }).submit(1, 2, 3, 4);
    queue.fail(1);

    queue.passRun(1, 2);

    expect(queue.testedSince(2)).toEqual([[3, 4]]);
    expect(queue.runTesting(3, 4)).toMatchObject({
      purpose: "bisection",
      failedRunId: "q-1",
      dependsOn: [1, 2],
    });
    expect(queue.pr(3).stateDetail).toContain("Bisecting run q-1: its last part again");
  });

  it("fails the last PR without testing it alone once the PRs ahead of it passed", () => {
    const queue = batchesOf(4, { ...skipRedundant, bisectionConcurrency: 1 }).submit(1, 2, 3, 4);
    queue.fail(1).passRun(1, 2).mergeAll();

    queue.passRun(3).mergeAll();

    expect([1, 2, 3].map((number) => queue.stateOf(number))).toEqual(["merged", "merged", "merged"]);
    expect(queue.pr(4)).toMatchObject({ state: "failed", stateReason: "tests_failed" });
    expect(queue.runs().filter((run) => run.prs.some((pr) => pr.number === 4))).toHaveLength(1);
  });
});
