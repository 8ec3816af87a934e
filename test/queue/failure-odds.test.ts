// The odds that a PR is broken are pure functions of what the queue saw: its rates, the PR's own CI result on its
// head, and the failures pinned on it. They decide group sizes and when a PR fails (proof planner).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  bestGroupSize,
  probabilityBroken,
  REJECT_CONFIDENCE,
  shouldReject,
  type QueueRates,
} from "../../src/queue/failure-odds.ts";
import { isInert, step, type PullRequestEntry } from "../../src/queue/index.ts";
import type { HeadChecks } from "../../src/queue/state.ts";
import { aPr, aQueue, T0 } from "../support/queue-factories.ts";

// Odds are turned into probabilities as odds / (1 + odds), which floating point rounds: when a result is (almost)
// no evidence either way, e.g. a head failure at a 50% flake rate, the two sides may differ in the last bit.
const ROUNDING = 1e-12;

const rates: fc.Arbitrary<QueueRates> = fc.record({
  failureRate: fc.double({ min: 0.01, max: 0.5, noNaN: true }),
  flakeRate: fc.double({ min: 0.01, max: 0.5, noNaN: true }),
});

function queuedPr(
  pinnedFailures: number,
  headChecks: HeadChecks | null,
  failedSets: number[][] = [],
  setAside: number[][] = [],
): PullRequestEntry {
  const state = step(aQueue(), aPr(7), T0).state;
  const pr = state.prs[7]!;
  const failedRuns = pinnedFailures + failedSets.length + setAside.length;
  return { ...pr, evidence: { pinnedFailures, failedSets, setAside, failedRuns, passedRuns: 0, headChecks } };
}

describe("failure odds", () => {
  it("grow with every failure pinned on the PR, and with its own CI failing on its head", () => {
    fc.assert(
      fc.property(rates, fc.integer({ min: 0, max: 4 }), (seen, pinned) => {
        const plain = probabilityBroken(queuedPr(pinned, null), seen);
        expect(plain).toBeGreaterThanOrEqual(0);
        expect(plain).toBeLessThanOrEqual(1);
        expect(probabilityBroken(queuedPr(pinned + 1, null), seen)).toBeGreaterThanOrEqual(plain - ROUNDING);
        const failedHead = queuedPr(pinned, { headSha: "head-7", outcome: "failure" });
        const passedHead = queuedPr(pinned, { headSha: "head-7", outcome: "success" });
        expect(probabilityBroken(failedHead, seen)).toBeGreaterThanOrEqual(plain - ROUNDING);
        expect(probabilityBroken(passedHead, seen)).toBeLessThanOrEqual(plain + ROUNDING);
        // A result on another commit than the PR's head says nothing of it.
        expect(probabilityBroken(queuedPr(pinned, { headSha: "old", outcome: "failure" }), seen)).toBe(plain);
      }),
    );
  });

  it("never fail a PR that no failed run points at alone, however its own CI went", () => {
    fc.assert(
      fc.property(rates, (seen) => {
        expect(shouldReject(queuedPr(0, { headSha: "head-7", outcome: "failure" }), seen)).toBe(false);
      }),
    );
  });

  it("fail a PR at a 5% flake rate only after three failures alone, or two when its own CI failed", () => {
    const seen = { failureRate: 0.1, flakeRate: 0.05 };
    expect(shouldReject(queuedPr(2, null), seen)).toBe(false);
    expect(shouldReject(queuedPr(3, null), seen)).toBe(true);
    expect(shouldReject(queuedPr(2, { headSha: "head-7", outcome: "failure" }), seen)).toBe(true);
    expect(probabilityBroken(queuedPr(3, null), seen)).toBeGreaterThanOrEqual(REJECT_CONFIDENCE);
  });

  it("count a failed run it shares with unproven PRs, the narrowest only, and not one set aside", () => {
    const seen = { failureRate: 0.1, flakeRate: 0.05 };
    const pair = [7, 8];
    expect(shouldReject(queuedPr(2, null, [pair]), seen)).toBe(true);
    expect(shouldReject(queuedPr(2, null, [[7, 8, 9, 10]]), seen)).toBe(false);
    expect(shouldReject(queuedPr(2, null, [], [pair]), seen)).toBe(false);
    // Nested sets (a group and its half) are not independent: they weigh as the half alone.
    const nested = probabilityBroken(queuedPr(1, null, [[7, 8, 9, 10], pair]), seen);
    expect(nested).toBe(probabilityBroken(queuedPr(1, null, [pair]), seen));
    fc.assert(
      fc.property(
        rates,
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 2, max: 8 }),
        (rate, pinned, size) => {
          const set = Array.from({ length: size }, (_, index) => 7 + index);
          const withSet = probabilityBroken(queuedPr(pinned, null, [set]), rate);
          const without = probabilityBroken(queuedPr(pinned, null), rate);
          expect(withSet).toBeGreaterThanOrEqual(without - ROUNDING);
          // A failure shared with others weighs less than one only it explains.
          expect(withSet).toBeLessThanOrEqual(probabilityBroken(queuedPr(pinned + 1, null), rate) + ROUNDING);
        },
      ),
    );
  });

  it("size groups smaller as PRs fail more often, within the limit", () => {
    fc.assert(
      fc.property(
        rates,
        fc.double({ min: 0.01, max: 0.4, noNaN: true }),
        fc.integer({ min: 1, max: 16 }),
        (seen, p, limit) => {
          const size = bestGroupSize(p, seen, limit);
          expect(size).toBeGreaterThanOrEqual(1);
          expect(size).toBeLessThanOrEqual(limit);
          expect(bestGroupSize(Math.min(0.5, p * 2), seen, limit)).toBeLessThanOrEqual(size);
        },
      ),
    );
  });
});

describe("pr_head_checks_observed", () => {
  const observed = (outcome: "success" | "failure", headSha = "head-7") =>
    ({ type: "pr_head_checks_observed", prNumber: 7, headSha, outcome }) as const;

  it("records the PR's own CI result on its head; a failure stays, another commit's result is ignored", () => {
    let state = step(aQueue(), aPr(7), T0).state;
    state = step(state, observed("failure"), T0 + 1).state;
    expect(state.prs[7]?.evidence?.headChecks).toEqual({ headSha: "head-7", outcome: "failure" });
    expect(isInert(state, observed("success"), T0 + 2)).toBe(true);
    expect(step(state, observed("success"), T0 + 2).state).toBe(state);
    expect(step(state, observed("failure", "other"), T0 + 2).state).toBe(state);
  });
});
