import { describe, expect, it } from "vitest";
import type { QueueSettings } from "../../src/queue/index.ts";
import { aScenario } from "../support/queue-factories.ts";

/** A queue testing PRs in batches of `size`, merging with merge commits. */
function batchesOf(size: number, settings: Partial<QueueSettings> = {}) {
  return aScenario({ batch: true, batchingMinSize: size, mergeMethod: "merge_commit", ...settings });
}

const skipRedundant = { optimizationMode: "bisection_skip_redundant_tests" } as const;
const CI_FAILED = "Required status ci failed: https://ci.example/1";

describe("a failed batch leaves the stack", () => {
  it("sidelines the PRs of a failed batch, saying they leave their place to be bisected", () => {
    const queue = batchesOf(4, { bisectionConcurrency: 1 }).submit(1, 2, 3, 4);

    queue.failRun(1, 2, 3, 4);

    const why = "Run q-1 tested #1, #2, #3, #4 together; they leave their place to be bisected.";
    for (const number of [1, 2, 3, 4]) {
      expect(queue.pr(number).sidelined).toBe(true);
      const failure = queue.pr(number).history.find((step) => step.state === "pending_failure");
      expect(failure).toMatchObject({ reason: "tests_failed", detail: `${CI_FAILED} ${why}` });
    }
    expect(queue.pr(4)).toMatchObject({ state: "pending_failure", stateDetail: `${CI_FAILED} ${why}` });
  });

  it("restarts the runs behind a failed batch at once, without it", () => {
    const queue = batchesOf(4, { concurrency: 2 }).submit(1, 2, 3, 4, 5, 6, 7, 8);
    const behind = queue.runTesting(5, 6, 7, 8);

    queue.failRun(1, 2, 3, 4);

    expect(queue.state.runs[behind.id]).toMatchObject({
      status: "cancelled",
      endReason: "pr_ahead_failed",
      endDetail:
        "#1, #2, #3, #4 ahead of it failed; it will be tested again without them while they are retested.",
    });
    expect(queue.inFlight("main")).toEqual([[5, 6, 7, 8]]);
    expect(queue.runTesting(5, 6, 7, 8).dependsOn).toEqual([]);
    expect(queue.line).toEqual([5, 6, 7, 8, 1, 2, 3, 4]);
  });
});

describe("the bisection pool", () => {
  it("tests the halves of a failed batch of 4, the second on top of the first", () => {
    const queue = batchesOf(4, { concurrency: 2 }).submit(1, 2, 3, 4);

    queue.failRun(1, 2, 3, 4);

    expect(queue.inFlight("side")).toEqual([
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

  it("builds a bisection run's branch with new merge commits of its own PRs, dated at its start", () => {
    const queue = batchesOf(4, { concurrency: 2 }).submit(1, 2, 3, 4);
    const [batchBranch] = queue.commandsOf("create_test_branch");
    queue.advance(5);

    queue.failRun(1, 2, 3, 4);

    const [firstHalf, secondHalf] = queue.commandsOf("create_test_branch");
    expect(firstHalf?.prs.map((merge) => [merge.number, merge.commitDate])).toEqual([
      [1, queue.now],
      [2, queue.now],
    ]);
    expect(secondHalf?.prs.map((merge) => merge.number)).toEqual([1, 2, 3, 4]);
    expect(secondHalf?.prs.slice(2).map((merge) => merge.commitDate)).toEqual([queue.now, queue.now]);
    expect(batchBranch?.prs.every((merge) => merge.commitDate < queue.now)).toBe(true);
  });

  it("runs no more bisection runs at once than bisectionConcurrency, whatever the concurrency", () => {
    const queue = batchesOf(4, { concurrency: 3, bisectionConcurrency: 1 }).submit(1, 2, 3, 4);

    queue.failRun(1, 2, 3, 4);
    expect(queue.inFlight("side")).toEqual([[1, 2]]);

    queue.passRun(1, 2);
    expect(queue.inFlight("side")).toEqual([[3, 4]]);
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

      queue.failRun(1, 2, 3, 4);

      expect(queue.inFlight("side")).toEqual(runs);
    },
  );

  it("keeps the main line testing the next batch, bounded by concurrency apart from the bisection pool", () => {
    const queue = batchesOf(2, { concurrency: 1, bisectionConcurrency: 2 }).submit(1, 2, 3, 4, 5, 6);

    queue.failRun(1, 2);

    expect(queue.inFlight("side")).toEqual([[1], [2]]);
    expect(queue.inFlight("main")).toEqual([[3, 4]]);
    expect(queue.runTesting(3, 4).dependsOn).toEqual([]);
    expect([5, 6].map((number) => queue.stateOf(number))).toEqual(["pending", "pending"]);
  });
});

describe("what bisection decides", () => {
  it("sends a part whose bisection run passed back to the queue, where the main line tests it again", () => {
    const queue = batchesOf(4, { concurrency: 1, bisectionConcurrency: 2 }).submit(1, 2, 3, 4);
    queue.failRun(1, 2, 3, 4);
    const bisectionRun = queue.runTesting(1, 2);

    queue.passRun(1, 2);

    expect(queue.pr(1).history.at(-2)).toMatchObject({
      state: "pending",
      reason: "cleared_by_retest",
      detail: `Run ${bisectionRun.id} passed with it on the side, after run q-1 failed; it goes back to the queue.`,
    });
    expect(queue.state.merging).toBeNull();
    expect(queue.inFlight("main")).toEqual([[1, 2]]);
    expect(queue.pr(1).sidelined).toBeUndefined();
  });

  it("merges a cleared part from the run of the main line that tested it again", () => {
    const queue = batchesOf(4, { concurrency: 1, bisectionConcurrency: 2 }).submit(1, 2, 3, 4);
    queue.failRun(1, 2, 3, 4).passRun(1, 2);
    const mainRun = queue.runTesting(1, 2);

    queue.passRun(1, 2);

    expect(queue.commandsOf("fast_forward_target")).toEqual([
      expect.objectContaining({ prNumbers: [1, 2], sha: queue.state.runs[mainRun.id]?.testBranchSha }),
    ]);
    queue.mergeSucceeds();
    expect([queue.stateOf(1), queue.stateOf(2)]).toEqual(["merged", "merged"]);
  });

  it("lets a later part's pass answer for the parts it was tested on: they all go back to the queue", () => {
    const queue = batchesOf(4, { concurrency: 2 }).submit(1, 2, 3, 4);
    queue.failRun(1, 2, 3, 4);
    const firstHalf = queue.runTesting(1, 2);
    const secondHalf = queue.runTesting(3, 4);

    queue.passRun(3, 4);

    expect(queue.state.runs[firstHalf.id]).toMatchObject({
      status: "cancelled",
      endReason: "superseded",
      endDetail: `Run ${secondHalf.id}, which holds it, passed.`,
    });
    for (const number of [1, 2, 3, 4]) {
      expect(queue.pr(number).history.at(-2)).toMatchObject({
        state: "pending",
        reason: "cleared_by_retest",
      });
    }
    expect(queue.inFlight("main")).toEqual([[1, 2, 3, 4]]);
  });

  it("makes a culprit found by bisection wait for the PRs ahead of it still under test", () => {
    const queue = batchesOf(4, { concurrency: 1, bisectionConcurrency: 2 }).submit(1, 2, 3, 4);
    queue.failRun(1, 2, 3, 4).passRun(1, 2).failRun(3, 4).passRun(3);

    queue.failRun(4);

    expect(queue.pr(4)).toMatchObject({ state: "pending_failure", stateReason: "tests_failed" });
    expect(queue.pr(4).stateDetail).toBe(`${CI_FAILED} It is waiting for #1, #2 ahead of it before failing.`);
  });

  it("fails the culprit once the PRs ahead of it merged, naming the bisection run that found it", () => {
    const queue = batchesOf(4, { concurrency: 1, bisectionConcurrency: 2 }).submit(1, 2, 3, 4);
    queue.failRun(1, 2, 3, 4).passRun(1, 2).failRun(3, 4).passRun(3);
    const culpritRun = queue.runTesting(4);
    queue.failRun(4);

    queue.passMainLine();

    expect([1, 2, 3].map((number) => queue.stateOf(number))).toEqual(["merged", "merged", "merged"]);
    expect(queue.pr(4)).toMatchObject({
      state: "failed",
      stateReason: "tests_failed",
      stateDetail: `Bisection run ${culpritRun.id} found it: ${CI_FAILED}`,
    });
    expect(culpritRun).toMatchObject({ purpose: "bisection", dependsOn: [1, 2, 3] });
  });

  it("splits a failed batch of 8 recursively until the culprit is alone, and merges the 7 others", () => {
    const queue = batchesOf(8, { concurrency: 1, bisectionConcurrency: 2 }).submit(1, 2, 3, 4, 5, 6, 7, 8);
    queue.failRun(1, 2, 3, 4, 5, 6, 7, 8);
    expect(queue.inFlight("side")).toEqual([
      [1, 2, 3, 4],
      [5, 6, 7, 8],
    ]);
    const halfRun = queue.runTesting(5, 6, 7, 8);

    queue.passRun(1, 2, 3, 4).failRun(5, 6, 7, 8);
    expect(queue.inFlight("side")).toEqual([
      [5, 6],
      [7, 8],
    ]);
    expect(queue.runTesting(7, 8)).toMatchObject({ failedRunId: halfRun.id, dependsOn: [1, 2, 3, 4, 5, 6] });
    const quarterRun = queue.runTesting(7, 8);

    queue.passRun(5, 6).failRun(7, 8);
    expect(queue.inFlight("side")).toEqual([[7], [8]]);
    expect(queue.runTesting(8)).toMatchObject({
      failedRunId: quarterRun.id,
      dependsOn: [1, 2, 3, 4, 5, 6, 7],
    });

    queue.passRun(7).failRun(8).passMainLine();
    expect([1, 2, 3, 4, 5, 6, 7].map((number) => queue.stateOf(number))).toEqual(Array(7).fill("merged"));
    expect(queue.stateOf(8)).toBe("failed");
  });
});

describe("bisection_skip_redundant_tests", () => {
  it("does not test [3, 4] on top of [1, 2] once [1, 2] passed and [1, 2, 3, 4] failed: it splits [3, 4]", () => {
    const queue = batchesOf(4, { ...skipRedundant, bisectionConcurrency: 1 }).submit(1, 2, 3, 4);
    queue.failRun(1, 2, 3, 4);
    expect(queue.inFlight("side")).toEqual([[1, 2]]);

    queue.passRun(1, 2);

    expect(queue.inFlight("side")).toEqual([[3]]);
    expect(queue.runTesting(3)).toMatchObject({
      purpose: "bisection",
      failedRunId: "q-1",
      dependsOn: [1, 2],
    });
    const sideRuns = queue.runs().filter((run) => run.purpose === "bisection");
    expect(sideRuns.map((run) => run.prs.map((pr) => pr.number))).toEqual([[1, 2], [3]]);
  });

  it("without it, tests [3, 4] again on top of [1, 2]", () => {
    const queue = batchesOf(4, { bisectionConcurrency: 1 }).submit(1, 2, 3, 4);
    queue.failRun(1, 2, 3, 4);

    queue.passRun(1, 2);

    expect(queue.inFlight("side")).toEqual([[3, 4]]);
    expect(queue.runTesting(3, 4)).toMatchObject({
      purpose: "bisection",
      failedRunId: "q-1",
      dependsOn: [1, 2],
    });
    expect(queue.pr(3).stateDetail).toContain("Bisecting run q-1: its last part again");
  });

  it("fails the last PR without testing it alone once the part before it passed", () => {
    const queue = batchesOf(4, { ...skipRedundant, bisectionConcurrency: 1 }).submit(1, 2, 3, 4);
    queue.failRun(1, 2, 3, 4).passRun(1, 2);

    queue.passRun(3).passMainLine();

    expect([1, 2, 3].map((number) => queue.stateOf(number))).toEqual(["merged", "merged", "merged"]);
    expect(queue.pr(4)).toMatchObject({
      state: "failed",
      stateReason: "tests_failed",
      stateDetail: `Run q-1 failed with it, and bisection cleared the PRs tested before it: ${CI_FAILED}`,
    });
    expect(queue.runs().filter((run) => run.prs.some((pr) => pr.number === 4))).toHaveLength(1);
  });

  it("does not fail the last PR while the part before it is still testing", () => {
    const queue = batchesOf(2, { ...skipRedundant, concurrency: 1 }).submit(1, 2);

    queue.failRun(1, 2);

    expect(queue.inFlight("side")).toEqual([[1]]);
    expect(queue.pr(2)).toMatchObject({ state: "pending_failure", sidelined: true });
  });

  it("sends the last PR back to the queue when the part before it holds the culprit", () => {
    const queue = batchesOf(2, { ...skipRedundant, concurrency: 1 }).submit(1, 2);
    queue.failRun(1, 2);
    const bisectionRun = queue.runTesting(1);

    queue.failRun(1);

    expect(queue.pr(1)).toMatchObject({
      state: "failed",
      stateDetail: `Bisection run ${bisectionRun.id} found it: ${CI_FAILED}`,
    });
    expect(queue.pr(2).history.at(-2)).toMatchObject({
      state: "pending",
      reason: "pr_ahead_failed",
      detail: "#1, tested with it, failed; it will be tested again without it.",
    });
    expect(queue.inFlight("main")).toEqual([[2]]);
  });
});
