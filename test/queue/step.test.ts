import { describe, expect, it } from "vitest";
import type { QueueEvent, QueueState } from "../../src/queue/index.ts";
import { step } from "../../src/queue/index.ts";
import { aCheckRun, aPr, aScenario, T0 } from "../support/queue-factories.ts";

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const nested of Object.values(value)) deepFreeze(nested);
  }
  return value;
}

describe("step, a pure core", () => {
  it("never mutates the state it is given", () => {
    const queue = aScenario({ concurrency: 2, canOptimisticallyMerge: true, pendingFailureDepth: 1 }).submit(
      1,
      2,
      3,
    );
    queue.createBranches();
    const frozen: QueueState = deepFreeze(structuredClone(queue.state));
    const copy = structuredClone(frozen);
    const events: QueueEvent[] = [
      { type: "status_reported", sha: "tested-q-1", report: aCheckRun({ conclusion: "failure" }) },
      { type: "status_reported", sha: "tested-q-2", report: aCheckRun() },
      { type: "target_branch_moved", sha: "outside" },
      { type: "cancel_requested", prNumber: 2, reason: "pr_closed" },
      aPr(0, { priority: 0 }),
      { type: "tick" },
    ];

    for (const event of events) expect(() => step(frozen, event, T0 + 1_000_000_000)).not.toThrow();
    expect(frozen).toEqual(copy);
  });

  it("returns the very same state, and no command, for an event that changes nothing", () => {
    const queue = aScenario().submit(1);

    const result = step(
      queue.state,
      { type: "status_reported", sha: "unknown", report: aCheckRun() },
      T0 + 5,
    );

    expect(result.state).toBe(queue.state);
    expect(result.commands).toEqual([]);
  });

  it("shares unchanged PR entries with the previous state", () => {
    const queue = aScenario({}, "paused").submit(1, 2);
    const before = queue.state;

    queue.on(aPr(3));

    expect(queue.state.prs[1]).toBe(before.prs[1]);
    expect(queue.state.prs).not.toBe(before.prs);
  });

  it("records every transition with its time and reason", () => {
    const queue = aScenario().submit(1);
    queue.advance(3).pass(1);
    queue.advance(1).mergeSucceeds();

    expect(queue.pr(1).history.map(({ state, at, reason }) => [state, at - T0, reason])).toEqual([
      ["pending", 0, "submitted"],
      ["testing", 0, "test_started"],
      ["tests_passed", 180_001, "tests_passed"],
      ["merged", 240_001, "merged"],
    ]);
  });

  it("gives the same result for the same state, event and time", () => {
    const queue = aScenario({ concurrency: 3 }).submit(1, 2);

    expect(step(queue.state, aPr(3), T0 + 9)).toEqual(step(queue.state, aPr(3), T0 + 9));
  });
});
