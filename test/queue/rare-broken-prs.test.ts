// Where broken PRs are rare, the proof planner chains every fresh group: a failure there is most likely a flake,
// which a retest clears, and a group on the chain's end lands a CI run sooner than one on the target beside it.
import { describe, expect, it } from "vitest";
import { brokenPrsRare } from "../../src/queue/failure-odds.ts";
import { aScenario, type QueueScenario } from "../support/queue-factories.ts";

/** A queue of `auto` that landed `count` PRs one after another, each passing its run. */
function queueThatLanded(count: number): QueueScenario {
  const queue = aScenario({ optimizationMode: "auto", concurrency: 8 });
  for (let number = 1; number <= count; number++) {
    queue.submit(number).pass(number).mergeAll().advance(5);
  }
  return queue;
}

/** The PRs of the run a PR is tested in, and the PRs of the run it is built on (none: on the target). */
function placeOf(queue: QueueScenario, number: number): { run: number[]; on: number[] } {
  const run = queue.runOf(number);
  const base = run.baseRunId === null ? undefined : queue.state.runs[run.baseRunId];
  return { run: run.prs.map((pr) => pr.number), on: base?.prs.map((pr) => pr.number) ?? [] };
}

describe("a queue whose broken PRs are rare", () => {
  it("is one that decided 24 PRs in a row without a failure, and has no PR with two failures pinned on it", () => {
    expect(brokenPrsRare(queueThatLanded(23).state)).toBe(false);
    const calm = queueThatLanded(24);
    expect(calm.state.prs[24]?.state).toBe("merged");
    expect(brokenPrsRare(calm.state)).toBe(true);

    // One PR failed for good among the last hours' decisions: broken PRs are not rare.
    calm.submit(25);
    for (let attempt = 0; calm.stateOf(25) !== "failed"; attempt++) {
      expect(attempt).toBeLessThan(5);
      calm.fail(25).advance(31).on({ type: "tick" });
    }
    expect(brokenPrsRare(calm.state)).toBe(false);
  });

  it("waits for the chain end's commit and tests a fresh PR on it, where another queue races it on the target", () => {
    const calm = queueThatLanded(24);
    calm.submit(30);
    calm.submit(31);
    // The run of #30 has no commit yet: #31 waits for it rather than start beside it.
    expect(calm.stateOf(31)).toBe("pending");
    calm.createBranches();
    expect(placeOf(calm, 31)).toEqual({ run: [31], on: [30] });

    const fresh = queueThatLanded(0);
    fresh.submit(30);
    fresh.submit(31);
    expect(placeOf(fresh, 31)).toEqual({ run: [31], on: [] });
  });

  it("stops chaining every group once a PR has two failures pinned on it", () => {
    const queue = queueThatLanded(24);
    queue.submit(40);
    queue.fail(40).advance(1).on({ type: "tick" });
    queue.createBranches().fail(40).advance(1).on({ type: "tick" });
    expect(queue.pr(40).evidence?.pinnedFailures).toBe(2);
    expect(brokenPrsRare(queue.state)).toBe(false);
    queue.createBranches();
    queue.submit(41);
    // #40 is tested alone again, and #41 no longer bets on it.
    expect(placeOf(queue, 41)).toEqual({ run: [41], on: [] });
  });
});
