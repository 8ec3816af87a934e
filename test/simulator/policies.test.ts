import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Day } from "../../src/simulator/model.ts";
import { generateDay, MINUTE_MS } from "../../src/simulator/model.ts";
import type { DayOutcome } from "../../src/simulator/outcome.ts";
import { playQueue } from "../../src/simulator/queue-policy.ts";
import { playOracle, playSerial } from "../../src/simulator/references.ts";
import { figuresOf } from "../../src/simulator/figures.ts";
import { testsOnTheBareTarget } from "./wrong-queue.ts";
import { stressDay } from "./days.ts";

function runsOf(outcome: DayOutcome) {
  return outcome.ciRuns.map(({ content, startedAt, endsAt, passes }) => ({
    content,
    startedAt,
    endsAt,
    passes,
  }));
}

/** A day written by hand: PR n arrives at `arrivals[n-1]` minutes; CI takes 30 minutes and never flakes. */
function handMadeDay(arrivals: readonly number[], broken: readonly number[]): Day {
  return {
    seed: 1,
    model: { ...stressDay, jitter: 0, flaky: 0, hours: 2 },
    prs: arrivals.map((minutes, index) => ({
      number: index + 1,
      arrivesAt: minutes * MINUTE_MS,
      broken: broken.includes(index + 1),
    })),
  };
}

function decisions(outcome: DayOutcome) {
  return outcome.prs.map((pr) => [pr.number, pr.fate, (pr.decidedAt ?? 0) / MINUTE_MS]);
}

describe("the reference policies", () => {
  // #1 at 0, #2 at 10, #3 (broken) at 20, #4 at 50.
  const day = handMadeDay([0, 10, 20, 50], [3]);

  it("serial tests one PR at a time, in arrival order, on the target", () => {
    expect(decisions(playSerial(day))).toEqual([
      [1, "merged", 30],
      [2, "merged", 60],
      [3, "failed", 90],
      [4, "merged", 120],
    ]);
  });

  it("the oracle rejects broken PRs untested and tests every good PR waiting as one batch per free slot", () => {
    expect(decisions(playOracle(day, 1))).toEqual([
      [1, "merged", 30],
      [2, "merged", 60],
      [3, "failed", 20],
      [4, "merged", 90],
    ]);
    // Two slots: #2 starts at once on top of #1 and merges when both finished.
    expect(decisions(playOracle(day, 2))).toEqual([
      [1, "merged", 30],
      [2, "merged", 40],
      [3, "failed", 20],
      [4, "merged", 80],
    ]);
  });

  it("the saturated oracle merges every good PR as it arrives, each within one to two CI cycles", () => {
    const model = { ...stressDay, jitter: 0, flaky: 0, hours: 200 };
    const figures = figuresOf([playOracle(generateDay(model, 7), 1)]);
    // With one slot always busy, a PR waits for the batch in flight (uniform in 0..CI), then one CI cycle.
    expect(figures.mergedPerHour).toBeGreaterThan(30 * 0.9 * 0.97);
    expect(figures.mergedPerHour).toBeLessThan(30 * 0.9 * 1.03);
    expect(figures.timeToMergeP50).toBeGreaterThan(45 * 0.97);
    expect(figures.timeToMergeP50).toBeLessThan(45 * 1.03);
    expect(figures.timeToMergeP95).toBeGreaterThan(58.5 * 0.97);
    expect(figures.timeToMergeP95).toBeLessThanOrEqual(60);
  });
});

describe("the real queue core on a simulated day", () => {
  it("with one slot and no batching tests exactly what serial tests, run for run", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1000 }),
        fc.double({ min: 0.5, max: 6, noNaN: true }),
        fc.constantFrom(0, 0.05),
        (seed, arrivalsPerHour, conflicts) => {
          const day = generateDay({ ...stressDay, arrivalsPerHour, hours: 6, flaky: 0.1, conflicts }, seed);
          const core = playQueue(day, { concurrency: 1 });
          const serial = playSerial(day);
          expect(runsOf(core)).toEqual(runsOf(serial));
          expect(core.prs).toEqual(serial.prs);
          expect(core.violations).toEqual([]);
        },
      ),
      { numRuns: 15 },
    );
  });

  it("merges no broken PR, decides every PR, and only ever moves the target to what a passed run tested", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1000 }),
        fc.integer({ min: 1, max: 8 }),
        fc.boolean(),
        fc.integer({ min: 0, max: 2 }),
        fc.constantFrom("merge_commit", "squash") as fc.Arbitrary<"merge_commit" | "squash">,
        (seed, concurrency, canOptimisticallyMerge, pendingFailureDepth, mergeMethod) => {
          const day = generateDay({ ...stressDay, hours: 2, conflicts: 0.02 }, seed);
          const outcome = playQueue(day, {
            concurrency,
            canOptimisticallyMerge,
            pendingFailureDepth,
            mergeMethod,
          });
          expect(outcome.violations).toEqual([]);
          expect(outcome.prs.filter((pr) => pr.broken && pr.fate === "merged")).toEqual([]);
          expect(outcome.prs.filter((pr) => pr.fate === "unfinished")).toEqual([]);
        },
      ),
      { numRuns: 15 },
    );
  });

  it.each(["merge_commit", "squash"] as const)(
    "catches a queue that merges what it did not test (%s)",
    (mergeMethod) => {
      const day = generateDay({ ...stressDay, hours: 2 }, 1);
      const outcome = playQueue(day, { concurrency: 4, mergeMethod }, testsOnTheBareTarget);
      expect(outcome.violations.length).toBeGreaterThan(0);
      expect(outcome.violations[0]).toMatch(/the (queue asked to move the target|target moved) to c\d+/);
    },
  );
});
