import { describe, expect, it } from "vitest";
import type { CiRun } from "../../src/simulator/ci.ts";
import { ciSpendOf } from "../../src/simulator/ci-spend.ts";
import { EMPTY_CONTENT } from "../../src/simulator/content.ts";
import type { DayOutcome, PrOutcome } from "../../src/simulator/outcome.ts";
import { parsePolicies } from "../../src/simulator/policy-spec.ts";
import { compare } from "../../src/simulator/simulate.ts";
import { typicalDay } from "./days.ts";

const MINUTE = 60_000;

function run(
  minutes: number,
  result: { passes?: boolean; broken?: boolean; cancelledAfter?: number },
): CiRun {
  return {
    branch: "b",
    sha: "s",
    content: EMPTY_CONTENT,
    startedAt: 0,
    endsAt: minutes * MINUTE,
    passes: result.passes ?? false,
    broken: result.broken ?? false,
    retried: false,
    cancelledAt: result.cancelledAfter === undefined ? null : result.cancelledAfter * MINUTE,
  };
}

function pr(number: number, fate: PrOutcome["fate"], broken = false): PrOutcome {
  return { number, broken, arrivesAt: 0, fate, decidedAt: fate === "unfinished" ? null : 1 };
}

function day(prs: PrOutcome[], ciRuns: CiRun[]): DayOutcome {
  return { prs, ciRuns, ciMinutes: 0, queueLength: [[0, 0]], violations: [], endsAt: 1 };
}

describe("where a policy's CI minutes went", () => {
  it("splits the minutes by what each run came to, per merged PR, a cancelled run until it stopped", () => {
    const spend = ciSpendOf([
      day(
        [pr(1, "merged"), pr(2, "merged"), pr(3, "failed", true)],
        [
          run(30, { passes: true }),
          run(30, { broken: true }),
          run(30, { broken: true }),
          run(20, {}),
          run(30, { cancelledAfter: 10 }),
        ],
      ),
    ]);
    expect(spend).toEqual({
      passed: 15,
      failedOnBroken: 30,
      flaked: 10,
      cancelled: 5,
      failedRunsPerBrokenPr: 2,
    });
  });

  it("has no figure per merged PR when nothing merged, nor per broken PR when none was submitted", () => {
    expect(ciSpendOf([day([pr(1, "failed")], [run(30, {})])])).toEqual({
      passed: null,
      failedOnBroken: null,
      flaked: null,
      cancelled: null,
      failedRunsPerBrokenPr: null,
    });
  });

  it("accounts for every CI minute of a played day: serial fails each broken PR once, the oracle never", () => {
    const { results } = compare({
      model: { ...typicalDay, hours: 4 },
      policies: parsePolicies("k=4,batch=3;k=8,auto"),
      seed: 3,
      days: 2,
    });
    for (const { figures } of results) {
      const { passed, failedOnBroken, flaked, cancelled } = figures.ciSpend;
      const parts = [passed, failedOnBroken, flaked, cancelled].map((part) => part ?? 0);
      expect(parts.reduce((a, b) => a + b, 0)).toBeCloseTo(figures.ciMinutesPerMerged ?? 0, 6);
    }
    const spendOf = (label: string) => results.find((result) => result.label === label)?.figures.ciSpend;
    expect(spendOf("serial")?.failedRunsPerBrokenPr).toBe(1);
    expect(spendOf("oracle k=8")?.failedOnBroken).toBe(0);
  });
});
