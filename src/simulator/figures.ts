// The figures a simulation prints, pooled over every simulated day of one policy.
import { type CiSpend, ciSpendOf } from "./ci-spend.ts";
import { HOUR_MS, MINUTE_MS } from "./model.ts";
import type { DayOutcome } from "./outcome.ts";

export interface Figures {
  /** Days pooled. */
  readonly days: number;
  readonly merged: number;
  /** Merged PRs per hour, over the days' full length (window and drain). */
  readonly mergedPerHour: number;
  /** Minutes from submission to merge of the good PRs that merged; null when none did. */
  readonly timeToMergeP50: number | null;
  readonly timeToMergeP95: number | null;
  readonly ciRunsPerMerged: number | null;
  readonly ciMinutesPerMerged: number | null;
  /** Where those minutes went (`--ci-spend`). */
  readonly ciSpend: CiSpend;
  /** Good PRs failed by tests (flakes), summed over the days. */
  readonly innocentRejected: number;
  readonly brokenMerged: number;
  /** PRs failed because they did not merge cleanly. */
  readonly conflicts: number;
  /** PRs still undecided when the simulation gave up draining (a stuck queue). */
  readonly unfinished: number;
  readonly violations: number;
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

export function figuresOf(days: readonly DayOutcome[]): Figures {
  const prs = days.flatMap((day) => day.prs);
  const merged = prs.filter((pr) => pr.fate === "merged");
  const hours = days.reduce((sum, day) => sum + day.endsAt, 0) / HOUR_MS;
  const latencies = merged
    .filter((pr) => !pr.broken)
    .map((pr) => ((pr.decidedAt as number) - pr.arrivesAt) / MINUTE_MS)
    .sort((a, b) => a - b);
  const runs = days.reduce(
    (sum, day) => sum + day.ciRuns.reduce((count, run) => count + (run.retried ? 2 : 1), 0),
    0,
  );
  const minutes = days.reduce((sum, day) => sum + day.ciMinutes, 0);
  return {
    days: days.length,
    merged: merged.length,
    mergedPerHour: hours > 0 ? merged.length / hours : 0,
    timeToMergeP50: percentile(latencies, 50),
    timeToMergeP95: percentile(latencies, 95),
    ciRunsPerMerged: merged.length > 0 ? runs / merged.length : null,
    ciMinutesPerMerged: merged.length > 0 ? minutes / merged.length : null,
    ciSpend: ciSpendOf(days),
    innocentRejected: prs.filter((pr) => !pr.broken && pr.fate === "failed").length,
    brokenMerged: prs.filter((pr) => pr.broken && pr.fate === "merged").length,
    conflicts: prs.filter((pr) => pr.fate === "conflict").length,
    unfinished: prs.filter((pr) => pr.fate === "unfinished").length,
    violations: days.reduce((sum, day) => sum + day.violations.length, 0),
  };
}
