import { describe, expect, it } from "vitest";
import { nextDeadline } from "../../src/queue/index.ts";
import { bestBatchSize, observedFailureRate } from "../../src/queue/batching.ts";
import { aScenario, MINUTE, T0 } from "../support/queue-factories.ts";

const batching = { batch: true, batchingMinSize: 3, batchingMaxWaitTimeMinutes: 10 } as const;

describe("batch formation", () => {
  it("tests batchingMinSize waiting PRs together as one run, in queue order, on one test branch", () => {
    const queue = aScenario(batching).submit(1, 2, 3);

    expect(queue.testedSince(0)).toEqual([[1, 2, 3]]);
    expect([1, 2, 3].map((number) => queue.stateOf(number))).toEqual(["testing", "testing", "testing"]);
    expect(queue.commandsOf("create_test_branch")).toEqual([
      expect.objectContaining({
        runId: "q-1",
        baseSha: "main-0",
        prs: [1, 2, 3].map((number) => expect.objectContaining({ number, headSha: `head-${number}` })),
      }),
    ]);
    expect(queue.pr(2).stateDetail).toBe("Testing in run q-1 with #1, #2, #3 on top of main.");
  });

  it("never puts more than batchingMinSize PRs in a batch", () => {
    const queue = aScenario({ ...batching, concurrency: 1 }, "paused").submit(1, 2, 3, 4, 5);

    queue.on({ type: "queue_updated", settings: {}, status: "running" });

    expect(queue.testedSince(0)).toEqual([[1, 2, 3]]);
    expect([4, 5].map((number) => queue.stateOf(number))).toEqual(["pending", "pending"]);
  });

  it("merges a passed batch's PRs together, in order", () => {
    const queue = aScenario({ ...batching, mergeMethod: "merge_commit" }).submit(1, 2, 3);

    queue.pass(1);

    expect(queue.commandsOf("fast_forward_target")).toEqual([
      expect.objectContaining({ prNumbers: [1, 2, 3], sha: queue.runOf(1).testBranchSha }),
    ]);
    queue.mergeSucceeds();
    expect([1, 2, 3].map((number) => queue.stateOf(number))).toEqual(["merged", "merged", "merged"]);
  });

  it("holds fewer PRs until the oldest has waited batchingMaxWaitTimeMinutes, and says when that ends", () => {
    const queue = aScenario(batching).submit(1);
    queue.advance(4).submit(2);

    expect([queue.stateOf(1), queue.stateOf(2)]).toEqual(["pending", "pending"]);
    expect(queue.runs()).toEqual([]);
    expect(nextDeadline(queue.state)).toBe(T0 + 10 * MINUTE);
  });

  it("starts the held PRs as one batch on the tick at the end of the wait", () => {
    const queue = aScenario(batching).submit(1);
    queue.advance(4).submit(2);

    queue.advance(5).on({ type: "tick" });
    expect(queue.runs()).toEqual([]);
    queue.tick(1);

    expect(queue.testedSince(0)).toEqual([[1, 2]]);
    expect(queue.commandsOf("create_test_branch")).toHaveLength(1);
  });

  it("counts the wait from when a PR became ready, not from its submission", () => {
    const queue = aScenario(batching).submitWith(1, { mergeability: "not_mergeable" });
    queue.advance(20).on({
      type: "mergeability_observed",
      prNumber: 1,
      headSha: "head-1",
      mergeability: "mergeable",
    });

    expect(queue.stateOf(1)).toBe("pending");
    expect(nextDeadline(queue.state)).toBe(queue.now + 10 * MINUTE);
  });

  it("sets no deadline for the wait while the main line is full, and starts the batch once a run ends", () => {
    const queue = aScenario({ ...batching, mergeMethod: "merge_commit" }).submit(1, 2, 3);
    queue.advance(1).submit(4);
    expect(nextDeadline(queue.state)).toBe(queue.runOf(1).startedAt + 300 * MINUTE);

    queue.advance(15).pass(1).mergeAll();

    expect(queue.testedSince(1)).toEqual([[4]]);
  });

  it("starts a full batch at once, without waiting for the end of the wait", () => {
    const queue = aScenario(batching).submit(1, 2);
    queue.advance(1).submit(3);

    expect(queue.testedSince(0)).toEqual([[1, 2, 3]]);
  });

  it("without batching, tests each PR alone at once", () => {
    const queue = aScenario({ ...batching, batch: false, concurrency: 3 }).submit(1, 2, 3);

    expect(queue.testedSince(0)).toEqual([[1], [2], [3]]);
  });

  it("tests a noBatch PR alone at once", () => {
    const queue = aScenario(batching).submitWith(1, { noBatch: true });

    expect(queue.testedSince(0)).toEqual([[1]]);
  });

  it("cuts a batch at a noBatch PR, which runs alone between the batches around it", () => {
    const queue = aScenario({ ...batching, concurrency: 3 }).submit(1, 2);
    queue.submitWith(3, { noBatch: true }).submit(4, 5, 6);

    expect(queue.runs()).toEqual([]);
    queue.tick(10);

    expect(queue.testedSince(0)).toEqual([[1, 2], [3], [4, 5, 6]]);
    expect(queue.runOf(3).dependsOn).toEqual([1, 2]);
  });

  it("does not hold an urgent PR: it starts at once with the PRs waiting behind it", () => {
    const queue = aScenario(batching).submit(1);

    queue.submitWith(2, { priority: 0 });

    expect(queue.testedSince(0)).toEqual([[2, 1]]);
  });

  it("does not hold PRs that were tested before and went back to waiting", () => {
    const queue = aScenario(batching).submit(1, 2, 3);

    queue.on({ type: "cancel_requested", prNumber: 3, reason: "cancelled_by_user" });

    expect(queue.pr(1).history.map((step) => step.state)).toEqual([
      "pending",
      "testing",
      "pending",
      "testing",
    ]);
    expect(queue.testedSince(1)).toEqual([[1, 2]]);
  });

  it("tells the PRs of a batch that a PR of their batch was cancelled, not that a PR ahead of them was", () => {
    const queue = aScenario(batching).submit(1, 2, 3);

    queue.on({ type: "cancel_requested", prNumber: 3, reason: "cancelled_by_user" });

    for (const number of [1, 2]) {
      const requeued = queue.pr(number).history[2];
      expect(requeued).toMatchObject({ state: "pending", reason: "pr_ahead_cancelled" });
      expect(requeued?.detail).not.toContain("ahead of it");
      expect(requeued?.detail).toContain("#3");
    }
  });

  it("tests the next batch speculatively on top of the batch ahead", () => {
    const queue = aScenario({ ...batching, batchingMinSize: 2, concurrency: 2 }).submit(1, 2, 3, 4);

    expect(queue.testedSince(0)).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(queue.runOf(3).dependsOn).toEqual([1, 2]);
    expect(queue.commandsOf("create_test_branch")[0]?.prs.map((pr) => pr.number)).toEqual([1, 2, 3, 4]);
  });

  it("starts no more main-line batches than concurrency allows", () => {
    const queue = aScenario({ ...batching, batchingMinSize: 2, concurrency: 2 }).submit(1, 2, 3, 4, 5, 6);

    expect(queue.testedSince(0)).toEqual([
      [1, 2],
      [3, 4],
    ]);
    queue.pass(1).mergeAll();

    expect(queue.testedSince(2)).toEqual([[5, 6]]);
  });
});

describe("adaptive batch size", () => {
  it.each([
    { failureRate: 0, limit: 4, size: 4 },
    { failureRate: 0.1, limit: 4, size: 4 },
    { failureRate: 0.1, limit: 20, size: 9 },
    { failureRate: 0.2, limit: 8, size: 4 },
    { failureRate: 0.3, limit: 8, size: 3 },
    { failureRate: 0.4, limit: 8, size: 2 },
    { failureRate: 0.5, limit: 8, size: 1 },
    { failureRate: 0.9, limit: 8, size: 1 },
  ])(
    "tests batches of $size when PRs fail at rate $failureRate, at most $limit",
    ({ failureRate, limit, size }) => {
      expect(bestBatchSize(failureRate, limit)).toBe(size);
    },
  );

  it("assumes a failure rate of 10% before the queue has decided any PR", () => {
    expect(observedFailureRate(aScenario().state)).toBeCloseTo(0.1);
  });

  it.each([
    { merged: 10, failed: 0, rate: 1 / 20 },
    { merged: 0, failed: 10, rate: 11 / 20 },
    { merged: 5, failed: 5, rate: 6 / 20 },
  ])(
    "with $merged PRs merged and $failed failed by their tests, sees a failure rate of $rate",
    ({ merged, failed, rate }) => {
      const queue = decidedQueue(merged, failed);

      expect(observedFailureRate(queue.state)).toBeCloseTo(rate);
    },
  );

  it("forgets PRs decided more than three hours before the latest one", () => {
    const queue = decidedQueue(0, 10);
    queue.advance(4 * 60);
    decide(queue, 100, "merge");

    expect(observedFailureRate(queue.state)).toBeCloseTo(1 / 11);
  });

  it("does not count PRs cancelled or failed for other reasons than their tests", () => {
    const queue = aScenario({ mergeMethod: "merge_commit" }).submit(1, 2);
    queue.on({ type: "cancel_requested", prNumber: 2, reason: "cancelled_by_user" });
    queue.on({ type: "test_branch_conflict", runId: queue.runOf(1).id, prNumber: 1 });

    expect(queue.pr(1).stateReason).toBe("merge_conflict");
    expect(observedFailureRate(queue.state)).toBeCloseTo(0.1);
  });

  it("forms smaller batches in a queue whose recent PRs failed often", () => {
    const failing = decidedQueue(0, 9, { batch: true, batchingMinSize: 4, adaptiveBatching: true });
    const healthy = decidedQueue(9, 0, { batch: true, batchingMinSize: 4, adaptiveBatching: true });

    for (const queue of [failing, healthy]) {
      queue.on({ type: "queue_updated", settings: {}, status: "paused" });
      queue.submit(201, 202, 203, 204);
      queue.on({ type: "queue_updated", settings: {}, status: "running" });
    }

    expect(failing.testedSince(9)).toEqual([[201]]);
    expect(healthy.testedSince(9)).toEqual([[201, 202, 203, 204]]);
  });
});

/** A queue that merged `merged` PRs and failed `failed` others on their tests, one at a time. */
function decidedQueue(merged: number, failed: number, settings = {}) {
  const queue = aScenario({ mergeMethod: "merge_commit", batchingMaxWaitTimeMinutes: 0, ...settings });
  for (let index = 1; index <= merged; index++) decide(queue, index, "merge");
  for (let index = 1; index <= failed; index++) decide(queue, 100 + index, "fail");
  return queue;
}

function decide(queue: ReturnType<typeof aScenario>, number: number, outcome: "merge" | "fail"): void {
  queue.submit(number);
  if (outcome === "merge") queue.pass(number).mergeAll();
  else queue.fail(number);
  expect(queue.stateOf(number)).toBe(outcome === "merge" ? "merged" : "failed");
}
