// The proof planner (optimizationMode separate_proof / auto) over random event sequences: the invariants of
// every queue (invariants.ts: every PR accounted for, runs bound by `concurrency`, the target only moved to
// tested commits), and at rest: no PR lost, no broken PR merged, nothing merged untested. The actions include
// switches to parallel mode and back, which hand the queue from the planner to the lanes' chains and back.
import fc from "fast-check";
import { describe, it } from "vitest";
import type { QueueSettings } from "../../src/queue/index.ts";
import { expectAtRest } from "../support/queue-at-rest.ts";
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

const scenario = fc.tuple(proofSettings, fc.array(action, { minLength: 20, maxLength: 150 }));

const simulate = Simulation.played;

// Hundreds of random sequences each: a busy CI machine needs more than the default 20 s; no test here is timed.
describe("the proof planner over random event sequences", { timeout: 90_000 }, () => {
  it("holds every invariant after every step: runs within `concurrency`, the target only on tested commits", () => {
    fc.assert(
      fc.property(scenario, ([settings, actions]) => {
        simulate(settings, actions);
      }),
      { numRuns: 100 },
    );
  }, 120_000);

  it("comes to rest with every PR merged, failed or cancelled, no broken PR merged and no branch left", () => {
    fc.assert(
      fc.property(scenario, ([settings, actions]) => {
        const simulation = simulate(settings, actions);
        simulation.drain();

        expectAtRest(simulation);
      }),
      { numRuns: 100 },
    );
  }, 120_000);
});
