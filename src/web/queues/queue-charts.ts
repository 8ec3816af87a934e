// The charts of a queue's last 24 hours, hour by hour: how deep it was, how many PRs merged, how long they took
// and how many CI runs each merge cost. Worked out from the queue's depth now and what happened since.
import type { QueueActivity } from "../../ports/queue-records.ts";
import { percentile } from "./queue-words.ts";

export const HOUR_MS = 3600 * 1000;
export const CHART_HOURS = 24;

export interface HourlySeries {
  /** The start of each hour, oldest first; the last hour ends now. */
  hours: number[];
  /** PRs in the queue at the end of each hour. */
  depth: number[];
  merged: number[];
  /** Median submission-to-merge of the hour's merges; null when none merged. */
  timeToMergeMs: (number | null)[];
  /** Runs ended per PR merged in the hour; null when none merged. */
  runsPerMerge: (number | null)[];
}

/** The hour (0 = the oldest) `at` falls in, of the CHART_HOURS hours ending at `now`. */
const hourOf = (at: number, now: number) => CHART_HOURS - 1 - Math.floor((now - at) / HOUR_MS);

export function hourlySeries(activity: QueueActivity, depthNow: number, now: number): HourlySeries {
  const hours = Array.from({ length: CHART_HOURS }, (_, index) => now - (CHART_HOURS - index) * HOUR_MS);
  const perHour = (times: readonly number[]) => {
    const counts = new Array<number>(CHART_HOURS).fill(0);
    for (const at of times) {
      const hour = hourOf(at, now);
      if (hour >= 0 && hour < CHART_HOURS) counts[hour] = (counts[hour] ?? 0) + 1;
    }
    return counts;
  };
  const entered = perHour(activity.entered);
  const left = perHour(activity.left);
  // Walking back from now: an hour ended with the depth of the next, less what entered and plus what left in it.
  const depth = new Array<number>(CHART_HOURS).fill(depthNow);
  for (let hour = CHART_HOURS - 2; hour >= 0; hour--) {
    const next = hour + 1;
    depth[hour] = Math.max(0, (depth[next] ?? 0) - (entered[next] ?? 0) + (left[next] ?? 0));
  }
  const merged = perHour(activity.merges.map((merge) => merge.at));
  const durations = hours.map((_, hour) =>
    activity.merges
      .filter((merge) => hourOf(merge.at, now) === hour)
      .map((merge) => merge.durationMs)
      .sort((a, b) => a - b),
  );
  const runs = perHour(activity.runsEnded);
  return {
    hours,
    depth,
    merged,
    timeToMergeMs: durations.map((sorted) => percentile(sorted, 0.5)),
    runsPerMerge: merged.map((count, hour) => (count === 0 ? null : (runs[hour] ?? 0) / count)),
  };
}
