// The hourly series behind a queue page's charts, worked out from the depth now and what happened since.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CHART_HOURS, HOUR_MS, hourlySeries } from "../../src/web/queues/queue-charts.ts";

const now = Date.parse("2026-11-21T10:30:00Z");
const ago = (hours: number) => now - hours * HOUR_MS;

describe("queue charts", () => {
  it("counts merges, their median time and the runs they took per hour, and walks the depth back from now", () => {
    const series = hourlySeries(
      {
        merges: [
          { at: ago(0.5), durationMs: 10 * 60_000 },
          { at: ago(0.4), durationMs: 30 * 60_000 },
          { at: ago(0.2), durationMs: 20 * 60_000 },
          { at: ago(5.5), durationMs: 60 * 60_000 },
        ],
        entered: [ago(0.9), ago(0.8), ago(0.7), ago(0.6), ago(30)],
        left: [ago(0.5), ago(0.4), ago(0.2), ago(5.5)],
        runsEnded: [ago(0.5), ago(0.45), ago(0.4), ago(0.3), ago(0.2), ago(5.5)],
      },
      3,
      now,
    );
    expect(series.hours).toHaveLength(CHART_HOURS);
    expect(series.hours[CHART_HOURS - 1]).toBe(ago(1));
    expect(series.merged.slice(-6)).toEqual([1, 0, 0, 0, 0, 3]);
    expect(series.timeToMergeMs.at(-1)).toBe(20 * 60_000);
    expect(series.timeToMergeMs.at(-2)).toBeNull();
    expect(series.runsPerMerge.at(-1)).toBeCloseTo(5 / 3);
    expect(series.runsPerMerge.at(-6)).toBe(1);
    // 3 now; in the last hour 4 entered and 3 left, so 2 at the end of the hour before, 3 before the merge 5.5 h ago.
    expect(series.depth.slice(-7)).toEqual([3, 2, 2, 2, 2, 2, 3]);
  });

  it("never shows a negative depth, and counts every merge of the last 24 hours once", () => {
    const time = fc.integer({ min: 0, max: 30 * HOUR_MS }).map((back) => now - back);
    fc.assert(
      fc.property(fc.array(time), fc.array(time), fc.nat(50), (mergedAt, entered, depthNow) => {
        const merges = mergedAt.map((at) => ({ at, durationMs: 1000 }));
        const series = hourlySeries({ merges, entered, left: mergedAt, runsEnded: [] }, depthNow, now);
        expect(series.depth.every((depth) => depth >= 0)).toBe(true);
        const recent = mergedAt.filter((at) => at > now - CHART_HOURS * HOUR_MS).length;
        expect(series.merged.reduce((sum, count) => sum + count, 0)).toBe(recent);
      }),
    );
  });
});
