// Lanes in the simulator: PRs fall into independent target groups, the simulated CI uploads each PR's targets
// once it is submitted, and the queue plays the day in parallel mode.
import { describe, expect, it } from "vitest";
import type { QueueEvent, QueueState } from "../../src/queue/index.ts";
import { step } from "../../src/queue/index.ts";
import { generateDay } from "../../src/simulator/model.ts";
import { parsePolicy, PolicySpecError } from "../../src/simulator/policy-spec.ts";
import { playQueue } from "../../src/simulator/queue-policy.ts";
import { stressDay } from "./days.ts";

/** Plays a stress morning, recording every event the queue core was given and the mode it ran in. */
function playRecorded(lanes?: number) {
  const day = generateDay({ ...stressDay, hours: 4 }, 7);
  const events: QueueEvent[] = [];
  const modes = new Set<QueueState["settings"]["mode"]>();
  const outcome = playQueue(
    day,
    { concurrency: 4 },
    (state, event, now) => {
      events.push(event);
      modes.add(state.settings.mode);
      return step(state, event, now);
    },
    lanes,
  );
  return { day, events, modes, outcome };
}

describe("lanes in the simulator", () => {
  it("uploads each PR's targets right after its submission, and plays the queue in parallel mode", () => {
    const { day, events, modes, outcome } = playRecorded(4);

    const uploads = events.flatMap((event, index) =>
      event.type === "pr_submitted" ? [[event.pr, events[index + 1]] as const] : [],
    );
    expect(uploads).toHaveLength(day.prs.length);
    for (const [pr, next] of uploads) {
      expect(next).toMatchObject({ type: "impacted_targets_set", prNumber: pr.number, headSha: pr.headSha });
    }
    const targets = uploads.map(([, next]) =>
      JSON.stringify(next?.type === "impacted_targets_set" && next.targets),
    );
    expect(new Set(targets)).toEqual(
      new Set(['"ALL"', '["//group-1"]', '["//group-2"]', '["//group-3"]', '["//group-4"]']),
    );
    const impactingAll = targets.filter((target) => target === '"ALL"').length / targets.length;
    expect(impactingAll).toBeGreaterThan(0.05);
    expect(impactingAll).toBeLessThan(0.15);
    expect([...modes]).toEqual(["parallel"]);
    expect(outcome.violations).toEqual([]);
    expect(outcome.prs.filter((pr) => pr.broken && pr.fate === "merged")).toEqual([]);
    expect(outcome.prs.filter((pr) => pr.fate === "unfinished")).toEqual([]);
  });

  it("plays the same PRs without lanes, in single mode and with no targets", () => {
    const four = playRecorded(4);
    const single = playRecorded();

    expect(four.day.prs).toEqual(single.day.prs);
    expect(single.events.some((event) => event.type === "impacted_targets_set")).toBe(false);
    expect([...single.modes]).toEqual(["single"]);
  });

  it("reads lanes=n as a policy in parallel mode with n target groups", () => {
    expect(parsePolicy("k=4,lanes=4")).toEqual({
      label: "k=4,lanes=4",
      settings: { concurrency: 4, mode: "parallel" },
      lanes: 4,
    });
    expect(() => parsePolicy("lanes=0")).toThrow(PolicySpecError);
    expect(() => parsePolicy("lanes")).toThrow(
      'in "lanes": lanes needs a whole number of at least 1, got nothing',
    );
  });
});
