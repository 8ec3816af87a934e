import { describe, expect, it } from "vitest";
import { parsePriority, priorityNameOf } from "../../src/queue/priority.ts";
import { aPr, aScenario } from "../support/queue-factories.ts";

describe("queue order", () => {
  it("orders waiting PRs by priority, then by submission time", () => {
    const queue = aScenario({}, "paused");
    queue.on(aPr(1, { priority: 200 }));
    queue.advance(1).on(aPr(2));
    queue.advance(1).on(aPr(3, { priority: 10 }));
    queue.advance(1).on(aPr(4));

    expect(queue.line).toEqual([3, 2, 4, 1]);
  });

  it("keeps a higher-priority PR behind the PRs already testing", () => {
    const queue = aScenario({ concurrency: 2 }).submit(1, 2);

    queue.on(aPr(3, { priority: 10 }));

    expect(queue.line).toEqual([1, 2, 3]);
    expect(queue.stateOf(1)).toBe("testing");
    expect(queue.stateOf(2)).toBe("testing");
  });

  it("puts a higher-priority PR ahead of lower-priority PRs still waiting", () => {
    const queue = aScenario({ concurrency: 1 }).submit(1, 2);

    queue.on(aPr(3, { priority: 10 }));

    expect(queue.line).toEqual([1, 3, 2]);
  });

  it("moves an urgent PR ahead of testing PRs, whose runs restart on top of it", () => {
    const queue = aScenario({ concurrency: 2 }).submit(1, 2);
    const abandoned = [queue.runOf(1).id, queue.runOf(2).id];

    queue.on(aPr(3, { priority: 0 }));

    expect(queue.line).toEqual([3, 1, 2]);
    expect(abandoned.map((runId) => queue.state.runs[runId]?.status)).toEqual(["cancelled", "cancelled"]);
    expect(queue.pr(1).history.map((step) => step.reason)).toContain("urgent_pr_ahead");
    expect(queue.pr(2).history.map((step) => step.reason)).toContain("pr_ahead_requeued");
    expect(queue.runOf(3).dependsOn).toEqual([]);
    expect(queue.runOf(1).dependsOn).toEqual([3]);
  });

  it("does not move an urgent PR ahead of a merge in flight", () => {
    const queue = aScenario({ concurrency: 2 }).submit(1, 2).pass(1);
    expect(queue.state.merging?.prNumbers).toEqual([1]);

    queue.on(aPr(3, { priority: 0 }));

    expect(queue.line).toEqual([1, 3, 2]);
    expect(queue.stateOf(1)).toBe("tests_passed");
    expect(queue.runOf(3).dependsOn).toEqual([1]);
  });

  it("moves a testing PR resubmitted as urgent ahead of the testing PRs it outranks", () => {
    const queue = aScenario({ concurrency: 3 }).submit(1, 2, 3);

    queue.on(aPr(3, { priority: 0 }));

    expect(queue.line).toEqual([3, 1, 2]);
    expect(queue.runOf(3).dependsOn).toEqual([]);
    expect(queue.runOf(2).dependsOn).toEqual([3, 1]);
  });

  it("keeps submission order between urgent PRs", () => {
    const queue = aScenario({ concurrency: 2 });
    queue.on(aPr(1, { priority: 0 }));
    queue.advance(1).on(aPr(2, { priority: 0 }));

    expect(queue.line).toEqual([1, 2]);
    expect(queue.runOf(2).dependsOn).toEqual([1]);
    expect(queue.runOf(1).status).toBe("in_progress");
  });

  it("moves a waiting PR when a resubmission changes its priority", () => {
    const queue = aScenario({}, "paused").submit(1, 2, 3);

    queue.on(aPr(3, { priority: 10 }));

    expect(queue.line).toEqual([3, 1, 2]);
    expect(queue.pr(3).usedDefaultPriority).toBe(false);
  });

  it("lets higher priorities pass a PR whose run was abandoned", () => {
    const queue = aScenario({ concurrency: 2 }).submit(1, 2);
    queue.on(aPr(3, { priority: 10 }));
    expect(queue.line).toEqual([1, 2, 3]);

    queue.fail(1);

    expect(queue.line.slice(0, 2)).toEqual([3, 2]);
  });
});

describe("priorities", () => {
  it("names the four named values and shows any other value as its number", () => {
    expect([0, 10, 100, 200, 42].map(priorityNameOf)).toEqual(["urgent", "high", "medium", "low", "42"]);
  });

  it("reads names in any case, integers 0..255 and strings of digits", () => {
    expect(["URGENT", "High", "medium", "low", "7", 255, 0].map(parsePriority)).toEqual([
      0, 10, 100, 200, 7, 255, 0,
    ]);
  });

  it("refuses anything else", () => {
    expect(["", "asap", "-1", "256", "1.5"].map(parsePriority)).toEqual([null, null, null, null, null]);
    expect([256, -1, 1.5, Number.NaN].map(parsePriority)).toEqual([null, null, null, null]);
  });
});
