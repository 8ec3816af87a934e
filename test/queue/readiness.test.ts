import { describe, expect, it } from "vitest";
import { mergeabilityRechecksDue, nextDeadline } from "../../src/queue/index.ts";
import { pullRequestView } from "../../src/presentation/queue-views.ts";
import { aPr, aScenario, T0 } from "../support/queue-factories.ts";

describe("readiness", () => {
  it("makes a mergeable PR on the queue's branch pending at once", () => {
    const queue = aScenario({}, "paused");

    queue.on(aPr(1));

    expect(queue.stateOf(1)).toBe("pending");
  });

  it("keeps a PR whose mergeability GitHub is still computing not_ready", () => {
    const queue = aScenario();

    queue.on(aPr(1, { mergeability: "in_progress" }));

    expect(queue.stateOf(1)).toBe("not_ready");
    expect(queue.pr(1).stateDetail).toContain("still computing its mergeability");
  });

  it("reads mergeability GitHub is computing again after 1 s, 2 s, 4 s… up to 30 s, until it settles", () => {
    const queue = aScenario({}, "paused");
    const computing = {
      type: "mergeability_observed",
      prNumber: 1,
      headSha: "head-1",
      mergeability: "in_progress",
    } as const;
    queue.on(aPr(1, { mergeability: "in_progress" }));
    const delays: number[] = [];
    for (let read = 0; read < 7; read++) {
      const due = nextDeadline(queue.state) as number;
      delays.push(due - queue.now);
      expect(mergeabilityRechecksDue(queue.state, due - 1)).toEqual([]);
      expect(mergeabilityRechecksDue(queue.state, due)).toEqual([1]);
      queue.now = due;
      queue.on(computing);
    }
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);

    queue.on({ ...computing, mergeability: "mergeable" });
    expect(queue.stateOf(1)).toBe("pending");
    expect(nextDeadline(queue.state)).toBeNull();
  });

  it("backs a recheck off when GitHub answers for another head", () => {
    const queue = aScenario({}, "paused");
    queue.on(aPr(1, { mergeability: "in_progress" }));
    queue.now = T0 + 1000;
    queue.on({ type: "mergeability_observed", prNumber: 1, headSha: "pushed", mergeability: "mergeable" });
    expect(queue.stateOf(1)).toBe("not_ready");
    expect(nextDeadline(queue.state)).toBe(T0 + 1000 + 2000);
  });

  it("makes a not_ready PR pending when GitHub reports it mergeable", () => {
    const queue = aScenario({}, "paused");
    queue.on(aPr(1, { mergeability: "in_progress" }));

    queue.on({ type: "mergeability_observed", prNumber: 1, headSha: "head-1", mergeability: "mergeable" });

    expect(queue.stateOf(1)).toBe("pending");
    expect(queue.pr(1).stateReason).toBe("ready");
  });

  it("takes a pending PR back to not_ready when GitHub reports it not mergeable", () => {
    const queue = aScenario({}, "paused").submit(1);

    queue.on({
      type: "mergeability_observed",
      prNumber: 1,
      headSha: "head-1",
      mergeability: "not_mergeable",
    });

    expect(queue.stateOf(1)).toBe("not_ready");
    expect(queue.pr(1).stateReason).toBe("awaiting_readiness");
  });

  it("keeps the last verdict while GitHub recomputes mergeability", () => {
    const queue = aScenario({}, "paused").submit(1);

    const commands = queue.on({
      type: "mergeability_observed",
      prNumber: 1,
      headSha: "head-1",
      mergeability: "in_progress",
    });

    expect(queue.stateOf(1)).toBe("pending");
    expect(commands).toEqual([]);
  });

  it("ignores mergeability observed for an older head", () => {
    const queue = aScenario({}, "paused").submit(1);

    queue.on({
      type: "mergeability_observed",
      prNumber: 1,
      headSha: "old-head",
      mergeability: "not_mergeable",
    });

    expect(queue.stateOf(1)).toBe("pending");
  });

  it("does not ready a PR based on another branch, comparing names case-insensitively", () => {
    const queue = aScenario({}, "paused");

    queue.on(aPr(1, { baseBranch: "release" }));
    queue.on(aPr(2, { baseBranch: "MAIN" }));

    expect(queue.stateOf(1)).toBe("not_ready");
    expect(pullRequestView(queue.state, 1)?.readiness.doesBaseBranchMatch).toBe(false);
    expect(queue.stateOf(2)).toBe("pending");
  });

  it("in parallel mode, needs impacted targets for the PR's current head", () => {
    const queue = aScenario({ mode: "parallel" }, "paused").submit(1);
    expect(queue.stateOf(1)).toBe("not_ready");

    queue.on({ type: "impacted_targets_set", prNumber: 1, headSha: "old-head", targets: "ALL" });
    expect(queue.stateOf(1)).toBe("not_ready");

    queue.on({ type: "impacted_targets_set", prNumber: 1, headSha: "head-1", targets: ["//app"] });
    expect(queue.stateOf(1)).toBe("pending");
    expect(pullRequestView(queue.state, 1)?.readiness).toMatchObject({
      requiresImpactedTargets: true,
      hasImpactedTargets: true,
    });
  });

  it("skips not_ready PRs and starts the ready PRs behind them", () => {
    const queue = aScenario();
    queue.on(aPr(1, { mergeability: "in_progress" }));

    queue.on(aPr(2));

    expect(queue.stateOf(1)).toBe("not_ready");
    expect(queue.stateOf(2)).toBe("testing");
    expect(queue.line).toEqual([2, 1]);
  });
});
