// Where broken PRs are rare, the proof planner lets fresh groups take the chain at a lower bar and wait for its
// end's commit: a failure there is most likely a flake, which a retest clears, and a group on the chain's end
// lands a CI run sooner than one on the target beside it.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { countDecision } from "../../src/queue/decisions.ts";
import { brokenPrsRare, queueRates } from "../../src/queue/failure-odds.ts";
import type { QueueSettings } from "../../src/queue/index.ts";
import type { DecisionCounts } from "../../src/queue/state.ts";
import { aScenario, type QueueScenario } from "../support/queue-factories.ts";

/** A queue (`auto` unless `settings` say otherwise) that landed `count` PRs one after another, each passing its run. */
function queueThatLanded(count: number, settings: Partial<QueueSettings> = {}): QueueScenario {
  const queue = aScenario({ optimizationMode: "auto", concurrency: 8, ...settings });
  for (let number = 1; number <= count; number++) {
    queue.submit(number).pass(number).mergeAll().advance(5);
  }
  return queue;
}

/** Whether the queue counts its broken PRs as rare, at the rates it observed. */
function rare(queue: QueueScenario): boolean {
  return brokenPrsRare(queue.state, queueRates(queue.state));
}

/** The PRs of the run a PR is tested in, and the PRs of the run it is built on (none: on the target). */
function placeOf(queue: QueueScenario, number: number): { run: number[]; on: number[] } {
  const run = queue.runOf(number);
  const base = run.baseRunId === null ? undefined : queue.state.runs[run.baseRunId];
  return { run: run.prs.map((pr) => pr.number), on: base?.prs.map((pr) => pr.number) ?? [] };
}

describe("a queue whose broken PRs are rare", () => {
  it("is one that decided a dozen PRs without a failure; two failures among its last decisions end it", () => {
    expect(rare(queueThatLanded(11))).toBe(false);
    const queue = queueThatLanded(50);
    expect(queue.state.prs[50]?.state).toBe("merged");
    expect(rare(queue)).toBe(true);

    failForGood(queue, 51);
    expect(rare(queue)).toBe(true);
    failForGood(queue, 52);
    expect(rare(queue)).toBe(false);
  });

  it("counts PRs that failed runs and wait to be decided by their odds of being broken", () => {
    const queue = queueThatLanded(12);
    expect(rare(queue)).toBe(true);
    queue.submit(20).fail(20).advance(1).on({ type: "tick" });
    queue.submit(21).createBranches().fail(21).advance(1).on({ type: "tick" });
    expect(queue.stateOf(20)).not.toBe("failed");
    expect(rare(queue)).toBe(false);
  });

  it("waits for the chain end's commit and tests a fresh PR on it, where another queue races it on the target", () => {
    const calm = queueThatLanded(12);
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

  it("lets a fresh group take the chain at odds of landing under 70% while PRs wait for slots", () => {
    const queue = queueThatLanded(12, { concurrency: 3 });
    queue.submit(21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32).createBranches();
    // #21 alone, then six PRs on it: the chain lands with odds of about 0.67 at the queue's rates, and five PRs
    // wait for the one slot left. Beyond the 70% bar, yet the last group goes on the chain's end.
    expect(placeOf(queue, 22)).toEqual({ run: [22, 23, 24, 25, 26, 27], on: [21] });
    expect(placeOf(queue, 28)).toEqual({ run: [28, 29, 30, 31, 32], on: [22, 23, 24, 25, 26, 27] });
  });

  it("changes only auto: the manual modes keep their bar and never wait", () => {
    const manual = queueThatLanded(12, { optimizationMode: "separate_proof", pendingFailureDepth: 1 });
    expect(rare(manual)).toBe(true);
    manual.submit(30);
    manual.submit(31);
    expect(placeOf(manual, 31)).toEqual({ run: [31], on: [] });
  });
});

/** Fails PR `number` run after run until the queue fails it for good. */
function failForGood(queue: QueueScenario, number: number): void {
  queue.submit(number);
  for (let attempt = 0; queue.stateOf(number) !== "failed"; attempt++) {
    expect(attempt).toBeLessThan(5);
    queue.fail(number).advance(31).on({ type: "tick" });
  }
}

describe("the counts of decisions", () => {
  it("stay within the last 50 or so decisions, failures never more than decisions", () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { maxLength: 400 }), (failures) => {
        let counts: DecisionCounts | undefined;
        for (const failed of failures) counts = countDecision(counts, failed);
        const { decided = 0, failed = 0 } = counts ?? {};
        expect(decided).toBeLessThan(50);
        expect(failed).toBeGreaterThanOrEqual(0);
        expect(failed).toBeLessThanOrEqual(decided);
        // The latest decision has not decayed yet: a failure just now counts whole.
        if (failures.at(-1) === true) expect(failed).toBeGreaterThanOrEqual(1);
      }),
    );
  });
});
