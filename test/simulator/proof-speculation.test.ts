// The proof planner with speculation, played through a simulated stress day: a PR counts as proven only
// after a run holding it passed, so a broken PR never does, whatever landings cancel meanwhile.
import { describe, expect, it } from "vitest";
import { step, type QueueEvent, type QueueState } from "../../src/queue/index.ts";
import { isProven } from "../../src/queue/failure-odds.ts";
import { generateDay } from "../../src/simulator/model.ts";
import { playQueue } from "../../src/simulator/queue-policy.ts";
import { stressDay } from "./days.ts";

describe("the proof planner speculating on a stress day", () => {
  it("never counts a broken PR as proven, and fails no good PR", () => {
    const day = generateDay(stressDay, 1);
    const broken = new Set(day.prs.filter((pr) => pr.broken).map((pr) => pr.number));
    const provenBroken = new Set<number>();
    const watched = (state: QueueState, event: QueueEvent, now: number) => {
      const result = step(state, event, now);
      for (const prNumber of broken) {
        const pr = result.state.prs[prNumber];
        if (pr !== undefined && isProven(pr)) provenBroken.add(prNumber);
      }
      return result;
    };

    const outcome = playQueue(
      day,
      {
        concurrency: 8,
        optimizationMode: "separate_proof",
        batch: true,
        batchingMinSize: 4,
        pendingFailureDepth: 1,
      },
      watched,
    );

    expect([...provenBroken]).toEqual([]);
    expect(outcome.prs.filter((pr) => pr.fate === "failed" && !pr.broken)).toEqual([]);
    expect(outcome.violations).toEqual([]);
  });
});
