import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { contentKeyOf, contentText } from "../../src/simulator/content.ts";
import { figuresOf } from "../../src/simulator/figures.ts";
import { type Day, generateDay } from "../../src/simulator/model.ts";
import type { DayOutcome } from "../../src/simulator/outcome.ts";
import { parsePolicy, PolicySpecError } from "../../src/simulator/policy-spec.ts";
import { playProbableFutures } from "../../src/simulator/probable-futures.ts";
import { compare } from "../../src/simulator/simulate.ts";
import { stressDay } from "./days.ts";

const MINUTE = 60_000;

/** A day of PRs arriving a minute apart, those named broken. */
function dayOf(count: number, broken: readonly number[] = [], flaky = 0): Day {
  return {
    seed: 1,
    model: { ...stressDay, jitter: 0, flaky, hours: 1 },
    prs: Array.from({ length: count }, (_, index) => ({
      number: index + 1,
      arrivesAt: index * MINUTE,
      broken: broken.includes(index + 1),
    })),
  };
}

const fates = (outcome: DayOutcome) => outcome.prs.map((pr) => [pr.number, pr.fate]);

/** Each merged PR landed with a passed run that tested exactly the PRs merged before it and itself. */
function untestedMerges(outcome: DayOutcome): number[] {
  const merged = outcome.prs
    .filter((pr) => pr.fate === "merged")
    .sort((a, b) => (a.decidedAt as number) - (b.decidedAt as number));
  return merged.flatMap((pr, index) => {
    const content = contentText(contentKeyOf(merged.slice(0, index + 1).map((one) => one.number)));
    const tested = outcome.ciRuns.some(
      (run) =>
        run.passes &&
        run.cancelledAt === null &&
        contentText(run.content) === content &&
        run.endsAt <= (pr.decidedAt as number),
    );
    return tested ? [] : [pr.number];
  });
}

describe("the probable-futures design, played beside the queue", () => {
  it("with every guess right, lands each PR in order one CI cycle after it came, when its guess may take a slot", () => {
    const outcome = playProbableFutures(dayOf(6), { slots: 8, rerank: true, rejectAfter: 3 });
    expect(fates(outcome)).toEqual([1, 2, 3, 4, 5, 6].map((number) => [number, "merged"]));
    for (const pr of outcome.prs) expect(pr.decidedAt).toBe(pr.arrivesAt + 30 * MINUTE);
    expect(untestedMerges(outcome)).toEqual([]);
  });

  it("without reranking, a guess that took a slot keeps it, and a likelier guess that comes later waits", () => {
    const outcome = playProbableFutures(dayOf(6), { slots: 8, rerank: false, rejectAfter: 3 });
    expect(fates(outcome)).toEqual([1, 2, 3, 4, 5, 6].map((number) => [number, "merged"]));
    // PRs 2 and 3 also took slots on guesses that leave PRs ahead of them out: PR 5's guess that all land found
    // none free until PR 1 landed and the guesses leaving it out were cancelled.
    expect(outcome.prs.map((pr) => (pr.decidedAt as number) / MINUTE)).toEqual([30, 31, 32, 33, 60, 60]);
    expect(untestedMerges(outcome)).toEqual([]);
  });

  it("fails a broken PR after three failed runs on its true base, and lands the PRs behind it on the target", () => {
    const outcome = playProbableFutures(dayOf(4, [2]), { slots: 8, rerank: false, rejectAfter: 3 });
    expect(fates(outcome)).toEqual([
      [1, "merged"],
      [2, "failed"],
      [3, "merged"],
      [4, "merged"],
    ]);
    expect(untestedMerges(outcome)).toEqual([]);
    // PR 2's own runs: the first, then the two it still needs at once.
    const brokenContent = contentText(contentKeyOf([1, 2]));
    const brokenRuns = outcome.ciRuns.filter((run) => contentText(run.content) === brokenContent);
    expect(brokenRuns).toHaveLength(3);
    expect(outcome.prs[1]?.decidedAt).toBe(1 * MINUTE + 60 * MINUTE);
  });

  it("merges no broken PR, decides every PR and lands only tested commits, in submission order", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1000 }),
        fc.integer({ min: 1, max: 8 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 3 }),
        (seed, slots, rerank, rejectAfter) => {
          const day = generateDay({ ...stressDay, hours: 2, flaky: 0.1 }, seed);
          const outcome = playProbableFutures(day, { slots, rerank, rejectAfter });
          expect(outcome.prs.filter((pr) => pr.broken && pr.fate === "merged")).toEqual([]);
          expect(outcome.prs.filter((pr) => pr.fate === "unfinished")).toEqual([]);
          expect(untestedMerges(outcome)).toEqual([]);
          const landingOrder = outcome.prs
            .filter((pr) => pr.fate === "merged")
            .sort((a, b) => (a.decidedAt as number) - (b.decidedAt as number) || a.number - b.number)
            .map((pr) => pr.number);
          expect(landingOrder).toEqual([...landingOrder].sort((a, b) => a - b));
        },
      ),
      { numRuns: 20 },
    );
  });

  it("is a policy of the comparison: `futures` and `futures=rerank`, played once even with evidence", () => {
    expect(parsePolicy("k=8,futures=rerank")).toEqual({
      label: "k=8,futures=rerank",
      settings: { concurrency: 8 },
      futures: { rerank: true },
    });
    expect(() => parsePolicy("k=8,futures=often")).toThrow(PolicySpecError);
    expect(() => parsePolicy("k=8,batch=4,futures")).toThrow(/futures takes the concurrency \(k\) alone/);
    const model = { ...stressDay, hours: 4, headCiFailed: 0.5 };
    const { results } = compare({ model, policies: [parsePolicy("k=8,futures")], seed: 1, days: 1 });
    expect(results.map((result) => result.label)).toEqual([
      "oracle k=1",
      "oracle k=8",
      "serial",
      "k=8,futures",
    ]);
    const day = generateDay({ ...model, headCiFailed: 0 }, 1);
    const alone = figuresOf([playProbableFutures(day, { slots: 8, rerank: false, rejectAfter: 3 })]);
    expect(results.at(-1)?.figures).toEqual(alone);
  });
});
