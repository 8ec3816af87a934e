// The proof planner (optimizationMode separate_proof / auto) over random event sequences: the invariants of
// every queue (invariants.ts: every PR accounted for, runs bound by `concurrency`, the target only moved to
// tested commits), and at rest: no PR lost, no broken PR merged, nothing merged untested.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { QueueSettings } from "../../src/queue/index.ts";
import { action, initialSettings } from "./actions.ts";
import { Simulation } from "./simulation.ts";

const proofSettings: fc.Arbitrary<Partial<QueueSettings>> = fc
  .tuple(
    initialSettings,
    fc.record({
      optimizationMode: fc.constantFrom("separate_proof" as const, "auto" as const),
      batch: fc.boolean(),
      batchingMinSize: fc.integer({ min: 1, max: 5 }),
      concurrency: fc.integer({ min: 1, max: 4 }),
    }),
  )
  .map(([settings, proof]) => ({ ...settings, ...proof, mode: "single" }));

/** The planner plans single mode only; a switch to parallel mode hands the queue to the lanes' chains. */
const singleModeAction = action.filter(
  (next) => next.kind !== "update_queue" || next.settings.mode === undefined,
);

const scenario = fc.tuple(proofSettings, fc.array(singleModeAction, { minLength: 20, maxLength: 150 }));

function simulate(
  settings: Partial<QueueSettings>,
  actions: Parameters<Simulation["apply"]>[0][],
): Simulation {
  const simulation = new Simulation(settings);
  for (const next of actions) simulation.apply(next);
  return simulation;
}

describe("the proof planner over random event sequences", () => {
  it("holds every invariant after every step: runs within `concurrency`, the target only on tested commits", () => {
    fc.assert(
      fc.property(scenario, ([settings, actions]) => {
        simulate(settings, actions);
      }),
      { numRuns: 100 },
    );
  });

  it("comes to rest with every PR merged, failed or cancelled, no broken PR merged and no branch left", () => {
    fc.assert(
      fc.property(scenario, ([settings, actions]) => {
        const simulation = simulate(settings, actions);
        simulation.drain();

        expect(simulation.state.line).toEqual([]);
        expect([...simulation.github.branches.keys()]).toEqual([]);
        for (const pr of Object.values(simulation.state.prs)) {
          expect(["merged", "failed", "cancelled"]).toContain(pr.state);
          if (pr.state === "merged") expect(simulation.github.pullRequest(pr.number).bad).toBe(false);
        }
      }),
      { numRuns: 100 },
    );
  });
});
