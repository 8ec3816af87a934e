// Where a policy's CI minutes went, pooled over its simulated days: runs that passed, runs that failed on a
// broken PR, runs that failed by a flake, runs cancelled before they reported. Read beside the merged PRs, it
// says what a merged PR costs and what part of that went to finding the broken PRs.
import { type CiRun, minutesOf } from "./ci.ts";
import type { DayOutcome } from "./outcome.ts";

export interface CiSpend {
  /** CI minutes per merged PR, by what the run came to; null when nothing merged. */
  readonly passed: number | null;
  readonly failedOnBroken: number | null;
  readonly flaked: number | null;
  readonly cancelled: number | null;
  /** Failed runs that held a broken PR, per broken PR submitted; null when none was. */
  readonly failedRunsPerBrokenPr: number | null;
}

type Fate = "passed" | "failedOnBroken" | "flaked" | "cancelled";

/** A run CI retried on a known-flaky failure counts, both attempts, as what its retry came to. */
function fateOf(run: CiRun): Fate {
  if (run.cancelledAt !== null) return "cancelled";
  if (run.passes) return "passed";
  return run.broken ? "failedOnBroken" : "flaked";
}

export function ciSpendOf(days: readonly DayOutcome[]): CiSpend {
  const minutes: Record<Fate, number> = { passed: 0, failedOnBroken: 0, flaked: 0, cancelled: 0 };
  let failedOnBroken = 0;
  for (const run of days.flatMap((day) => day.ciRuns)) {
    const fate = fateOf(run);
    minutes[fate] += minutesOf(run);
    if (fate === "failedOnBroken") failedOnBroken++;
  }
  const prs = days.flatMap((day) => day.prs);
  const merged = prs.filter((pr) => pr.fate === "merged").length;
  const broken = prs.filter((pr) => pr.broken).length;
  const perMerged = (total: number) => (merged > 0 ? total / merged : null);
  return {
    passed: perMerged(minutes.passed),
    failedOnBroken: perMerged(minutes.failedOnBroken),
    flaked: perMerged(minutes.flaked),
    cancelled: perMerged(minutes.cancelled),
    failedRunsPerBrokenPr: broken > 0 ? failedOnBroken / broken : null,
  };
}
