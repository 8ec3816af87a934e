// The lanes gauge of the metrics (docs/monitoring.md#merge-queue-metrics): the independent groups the PRs in flight make, saved with each
// queue step.
import { describe, expect, it } from "vitest";
import { lanesInFlight } from "../../src/queue/lanes.ts";
import { aPr, aScenario } from "../support/queue-factories.ts";

describe("lanes in flight", () => {
  it("counts groups of PRs in flight linked by shared targets, directly or through another PR", () => {
    const queue = aScenario({ mode: "parallel", concurrency: 4 });
    const targets = { 1: ["//a"], 2: ["//b"], 3: ["//c"], 4: ["//a", "//c"] };
    for (const [number, impacted] of Object.entries(targets)) {
      queue.submit(Number(number));
      queue.on({
        type: "impacted_targets_set",
        prNumber: Number(number),
        headSha: `head-${number}`,
        targets: impacted,
      });
    }
    // Not ready without targets: not in flight.
    queue.on(aPr(5));

    expect(lanesInFlight(queue.state)).toBe(2);
  });

  it("counts one lane while a single-mode queue tests anything, and none when it is idle", () => {
    expect(lanesInFlight(aScenario({ concurrency: 2 }).submit(1, 2).state)).toBe(1);
    expect(lanesInFlight(aScenario().state)).toBe(0);
  });
});
