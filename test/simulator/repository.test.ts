import { describe, expect, it } from "vitest";
import { SimulatedCi } from "../../src/simulator/ci.ts";
import { type Day, impactedTargetsOf } from "../../src/simulator/model.ts";
import { SimulatedRepository } from "../../src/simulator/repository.ts";

const day: Day = {
  seed: 1,
  model: {
    arrivalsPerHour: 1,
    ciMinutes: 30,
    jitter: 0,
    broken: 0,
    flaky: 0,
    hours: 1,
    conflicts: 0,
    ciDurations: null,
    impactsAll: 0.1,
    headCiFailed: 0,
    knownFlaky: 0,
  },
  prs: [1, 2].map((number) => ({ number, arrivesAt: 0, broken: false })),
};

function headOf(result: ReturnType<SimulatedRepository["build"]>) {
  if (!("head" in result)) throw new Error(`#${result.conflict} conflicts`);
  return result.head;
}

describe("the simulated repository", () => {
  it("makes merge commits as the queue does: the same PR on the same commit and date is the same commit", () => {
    const repo = new SimulatedRepository(day);
    const root = repo.target.sha;
    const ahead = headOf(repo.build(root, [{ number: 1, commitDate: 10 }]));
    const behind = headOf(
      repo.build(root, [
        { number: 1, commitDate: 10 },
        { number: 2, commitDate: 20 },
      ]),
    );
    expect(behind.parent).toBe(ahead);
    // Tested again later: a new commit, whose CI results are its own.
    expect(headOf(repo.build(root, [{ number: 1, commitDate: 30 }])).sha).not.toBe(ahead.sha);
  });

  describe("with lanes, a PR merged on a target another lane moved", () => {
    const laneDay: Day = { ...day, model: { ...day.model, impactsAll: 0 } };
    /** #1 and #2 tested each on the bare target and passed; #1 merged first, then #2 on top of it. */
    function mergeBoth(lanes?: number) {
      const repo = new SimulatedRepository(laneDay, lanes);
      for (const number of [1, 2]) {
        repo.recordPass(headOf(repo.build(repo.target.sha, [{ number, commitDate: number }])).sha);
      }
      expect(repo.mergeOne(1, repo.target.sha, 1).kind).toBe("merged");
      expect(repo.mergeOne(2, repo.target.sha, 2).kind).toBe("merged");
      return repo.violations;
    }

    it("is what its run tested when the other lane shares none of its targets", () => {
      expect(impactedTargetsOf(laneDay, 1, 1000)).not.toEqual(impactedTargetsOf(laneDay, 2, 1000));
      expect(mergeBoth(1000)).toEqual([]);
    });

    it("is untested when they share a target, or without lanes", () => {
      expect(mergeBoth(1)).toEqual(["the target moved to c5 (#2 merged), which no passed run tested"]);
      expect(mergeBoth()).toHaveLength(1);
    });
  });

  it("cancels the CI run of the deleted test branch only", () => {
    const repo = new SimulatedRepository(day);
    const ci = new SimulatedCi(day);
    const head = headOf(repo.build(repo.target.sha, [{ number: 1, commitDate: 10 }]));
    const first = ci.start("mq/main/1", head, 0);
    const second = ci.start("mq/main/2", head, 0);
    ci.cancel("mq/main/1", 60_000);
    expect(ci.finish(first)).toBe(false);
    expect(ci.finish(second)).toBe(true);
    expect(ci.minutes()).toBe(1 + 30);
  });
});
