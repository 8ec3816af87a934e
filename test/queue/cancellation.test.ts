import { describe, expect, it } from "vitest";
import type { CancelReason } from "../../src/queue/index.ts";
import { aScenario } from "../support/queue-factories.ts";

describe("cancellation and restart", () => {
  it.each<CancelReason>([
    "cancelled_by_user",
    "pr_closed",
    "pr_updated",
    "pr_draft",
    "base_changed",
    "merged_outside_queue",
  ])("cancels a queued PR with reason %s", (reason) => {
    const queue = aScenario({}, "paused").submit(1);

    queue.on({ type: "cancel_requested", prNumber: 1, reason });

    expect(queue.pr(1)).toMatchObject({ state: "cancelled", stateReason: reason });
    expect(queue.line).toEqual([]);
  });

  it("cancels a testing PR's run and rebuilds the runs behind without it", () => {
    const queue = aScenario({ concurrency: 2 }).submit(1, 2);

    queue.on({ type: "cancel_requested", prNumber: 1, reason: "pr_updated" });

    expect(queue.state.runs["q-1"]).toMatchObject({ status: "cancelled", endReason: "pr_updated" });
    expect(queue.pr(2).history.map((step) => step.reason)).toContain("pr_ahead_cancelled");
    expect(queue.runOf(2).dependsOn).toEqual([]);
  });

  it("says who asked for a cancellation on request", () => {
    const queue = aScenario({}, "paused").submit(1, 2);

    queue.on({ type: "cancel_requested", prNumber: 1, reason: "cancelled_by_user", by: "@alice" });
    queue.on({ type: "cancel_requested", prNumber: 2, reason: "cancelled_by_user" });

    expect(queue.pr(1)).toMatchObject({
      stateReason: "cancelled_by_user",
      stateDetail: "Cancelled on request by @alice.",
    });
    expect(queue.pr(2)).toMatchObject({ stateDetail: "Cancelled on request." });
  });

  it("changes nothing when cancelling a PR that already left the queue", () => {
    const queue = aScenario().submit(1).fail(1);

    expect(queue.on({ type: "cancel_requested", prNumber: 1, reason: "cancelled_by_user" })).toEqual([]);
    expect(queue.stateOf(1)).toBe("failed");
  });

  it("tests a restarted PR again in a new run", () => {
    const queue = aScenario().submit(1);

    queue.on({ type: "restart_requested", prNumber: 1 });

    expect(queue.state.runs["q-1"]).toMatchObject({ status: "cancelled", endReason: "restart_requested" });
    expect(queue.runOf(1).id).toBe("q-2");
    expect(queue.pr(1).history.map((step) => step.reason)).toEqual([
      "submitted",
      "test_started",
      "restart_requested",
      "test_started",
    ]);
  });

  it("restarts the runs built on a restarted PR", () => {
    const queue = aScenario({ concurrency: 2 }).submit(1, 2);

    queue.on({ type: "restart_requested", prNumber: 1 });

    expect(queue.pr(2).history.map((step) => step.reason)).toContain("pr_ahead_requeued");
    expect(queue.runOf(2).dependsOn).toEqual([1]);
  });

  it("changes nothing when restarting a PR that is not tested yet", () => {
    const queue = aScenario({}, "paused").submit(1);

    expect(queue.on({ type: "restart_requested", prNumber: 1 })).toEqual([]);
  });

  it("tests a passed PR again when restarted", () => {
    const queue = aScenario({ concurrency: 2 }).submit(1, 2).pass(2);

    queue.on({ type: "restart_requested", prNumber: 2 });

    expect(queue.runOf(2)).toMatchObject({ id: "q-3", status: "in_progress" });
    expect(queue.state.runs["q-2"]?.branchDeleted).toBe(true);
  });
});
