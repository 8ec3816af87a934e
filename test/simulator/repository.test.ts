import { describe, expect, it } from "vitest";
import { SimulatedCi } from "../../src/simulator/ci.ts";
import type { Day } from "../../src/simulator/model.ts";
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
