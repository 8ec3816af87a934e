import { describe, expect, it } from "vitest";
import type { SimulationModel } from "../../src/simulator/model.ts";
import { generateDay } from "../../src/simulator/model.ts";
import { playQueue } from "../../src/simulator/queue-policy.ts";
import { playSerial } from "../../src/simulator/references.ts";

const stressDay: SimulationModel = {
  arrivalsPerHour: 30,
  ciMinutes: 30,
  jitter: 0.1,
  broken: 0.1,
  flaky: 0.05,
  hours: 24,
  conflicts: 0,
  ciDurations: null,
};

function runsOf(outcome: ReturnType<typeof playSerial>) {
  return outcome.ciRuns.map(({ content, startedAt, endsAt, passes }) => ({
    content,
    startedAt,
    endsAt,
    passes,
  }));
}

describe("the real queue core on a simulated day", () => {
  it("with one slot and no batching tests exactly what serial tests, run for run", () => {
    for (const model of [
      { ...stressDay, arrivalsPerHour: 1.5, hours: 12 },
      { ...stressDay, arrivalsPerHour: 4, hours: 8, conflicts: 0.05 },
    ]) {
      const day = generateDay(model, 3);
      const core = playQueue(day, { concurrency: 1 });
      const serial = playSerial(day);
      expect(runsOf(core)).toEqual(runsOf(serial));
      expect(core.prs).toEqual(serial.prs);
      expect(core.violations).toEqual([]);
    }
  });

  it("merges no broken PR and only ever moves the target to a commit a passed run tested", () => {
    const day = generateDay({ ...stressDay, hours: 6 }, 1);
    const outcome = playQueue(day, { concurrency: 8, canOptimisticallyMerge: true, pendingFailureDepth: 2 });
    expect(outcome.violations).toEqual([]);
    expect(outcome.prs.filter((pr) => pr.broken && pr.fate === "merged")).toEqual([]);
    expect(outcome.prs.every((pr) => pr.fate !== "unfinished")).toBe(true);
  });
});
