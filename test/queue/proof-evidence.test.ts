// What the proof planner keeps of a failed run: a failure that a later one makes someone else's fault is set
// aside, not forgotten, and pins the failure on its PR as soon as the others in it are proven.
import { describe, expect, it } from "vitest";
import { aScenario } from "../support/queue-factories.ts";

const inPairs = {
  optimizationMode: "separate_proof",
  batch: true,
  batchingMinSize: 2,
  concurrency: 1,
  mergeMethod: "merge_commit",
} as const;

describe("proof planner evidence", () => {
  it("keeps a failed pair as evidence against a PR after the other failed alone, and counts it once that one passes", () => {
    // #9 takes the one slot, so that #1 and #2 wait and are tested together once it landed.
    const queue = aScenario(inPairs).submit(9, 1, 2).passRun(9).mergeAll();
    queue.failRun(1, 2);
    // The pair is split: #1 goes first, alone, and flakes.
    queue.failRun(1);
    expect(queue.pr(1).evidence?.pinnedFailures).toBe(1);
    // #2 is no longer suspected for the pair (#1 failing alone explains it better) and is tested as fresh.
    expect(queue.stateOf(2)).toBe("testing");
    queue.failRun(2);
    expect(queue.pr(2).evidence).toMatchObject({ pinnedFailures: 1, setAside: [[1, 2]] });

    // #1 passes its retest: the pair's failure can only be #2's (or a flake), a second failure pinned on it.
    queue.passRun(1);
    expect(queue.stateOf(1)).toBe("tests_passed");
    expect(queue.pr(2).evidence).toMatchObject({ pinnedFailures: 2, setAside: [] });

    // It is retested alone: with the pair forgotten it would need one more failure alone to be failed.
    queue.mergeAll();
    expect(queue.testedSince(5)).toEqual([[2]]);
  });

  it("lets fresh PRs go before a suspect whose failed pair was set aside, until its companion is decided", () => {
    const queue = aScenario(inPairs).submit(9, 1, 2).passRun(9).mergeAll();
    queue.failRun(1, 2);
    queue.failRun(1);
    // #2, cleared of the pair by #1's failure alone, is tested as fresh while #3 and #4 come.
    queue.submit(3, 4);
    expect(queue.inFlight("main")).toEqual([[2]]);
    queue.failRun(2);
    // Each has one failure pinned and the pair set aside: whichever of them is proven pins the pair on the
    // other, so neither takes a run of its own while fresh PRs wait.
    expect(queue.pr(1).evidence).toMatchObject({ pinnedFailures: 1, setAside: [[1, 2]] });
    expect(queue.inFlight("main")).toEqual([[3, 4]]);
    queue.passRun(3, 4).mergeAll();
    expect(queue.inFlight("main")).toEqual([[1]]);
  });

  it("forgets the failed sets holding a PR that failed for good", () => {
    const queue = aScenario({ ...inPairs, batchingMinSize: 3 })
      .submit(9, 1, 2, 3)
      .passRun(9)
      .mergeAll();
    queue.failRun(1, 2, 3);
    // The first half of the group, #1 and #2, fails again: #3 is no longer suspected, its set is set aside.
    queue.failRun(1, 2);
    expect(queue.pr(3).evidence).toMatchObject({ failedSets: [], setAside: [[1, 2, 3]] });
    for (let retest = 0; queue.stateOf(1) !== "failed" && retest < 6; retest++) {
      const [group] = queue.inFlight("main");
      if (group?.includes(1)) queue.failRun(...group);
      else if (group !== undefined) queue.passRun(...group).mergeAll();
    }
    expect(queue.stateOf(1)).toBe("failed");
    expect(queue.pr(3).evidence?.setAside ?? []).toEqual([]);
  });

  it("tests both halves of a failed group at once while slots are to spare, one after the other when PRs wait", () => {
    const inFours = { ...inPairs, batchingMinSize: 4, concurrency: 4 };
    const resume = { type: "queue_updated", settings: {}, status: "running" } as const;
    const idle = aScenario(inFours, "paused").submit(1, 2, 3, 4);
    idle.on(resume);
    idle.failRun(1, 2, 3, 4);
    expect(idle.inFlight("main")).toEqual([
      [1, 2],
      [3, 4],
    ]);

    const busy = aScenario(inFours, "paused").submit(1, 2, 3, 4, 5, 6, 7, 8, 9);
    busy.on(resume);
    busy.failRun(1, 2, 3, 4);
    expect(busy.inFlight("main")).toContainEqual([1, 2]);
    expect(busy.inFlight("main").flat()).not.toContain(3);
  });
});
