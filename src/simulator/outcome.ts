// What one policy did on one simulated day: the fate of every PR, CI's work, the queue's length over time.
import type { CiRun } from "./ci.ts";

export type PrFate = "merged" | "failed" | "conflict" | "cancelled" | "unfinished";

export interface PrOutcome {
  readonly number: number;
  readonly broken: boolean;
  readonly arrivesAt: number;
  readonly fate: PrFate;
  /** When it merged or was rejected; null while unfinished. */
  readonly decidedAt: number | null;
}

export interface DayOutcome {
  readonly prs: readonly PrOutcome[];
  readonly ciRuns: readonly CiRun[];
  /** Minutes of CI spent, cancelled runs counted until their cancellation. */
  readonly ciMinutes: number;
  /** [time, PRs in the queue] at every change, starting at [0, 0]. */
  readonly queueLength: readonly (readonly [number, number])[];
  /** Target moves that no passed run vouched for. */
  readonly violations: readonly string[];
  /** When the last PR was decided, or the end of the window if later (ms since the start of the day). */
  readonly endsAt: number;
}

/** The number of PRs in the queue over the day: [time, length] at every change, from [0, 0]. */
export function queueLengthOf(prs: readonly PrOutcome[]): [number, number][] {
  const changes: [number, number][] = [];
  for (const pr of prs) {
    changes.push([pr.arrivesAt, 1]);
    if (pr.decidedAt !== null) changes.push([pr.decidedAt, -1]);
  }
  changes.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const series: [number, number][] = [[0, 0]];
  let length = 0;
  for (const [at, change] of changes) {
    length += change;
    const last = series.at(-1) as [number, number];
    if (last[0] === at) last[1] = length;
    else series.push([at, length]);
  }
  return series;
}

/** When the last PR was decided, or the end of the window if later. */
export function endOfDay(windowMs: number, prs: readonly PrOutcome[]): number {
  return prs.reduce((end, pr) => Math.max(end, pr.decidedAt ?? 0), windowMs);
}
