// The proof planner (optimizationMode separate_proof / auto) over random event sequences: the invariants of
// every queue (invariants.ts: every PR accounted for, runs bound by `concurrency`, the target only moved to
// tested commits), and at rest: no PR lost, no broken PR merged, nothing merged untested. The actions include
// switches to parallel mode and back, which hand the queue from the planner to the lanes' chains and back.
import fc from "fast-check";
import { describe, it } from "vitest";
import type { QueueSettings } from "../../src/queue/index.ts";
import { expectAtRest } from "../support/queue-at-rest.ts";
import { action, initialSettings } from "./actions.ts";
import { Simulation, type Action } from "./simulation.ts";

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

// Found by this property: #2's run is cancelled and it waits as a fresh PR when #1 is proven, and a failed set
// #2 held set aside pins the failure on it: it is planned as a suspect from where it waits.
const pinnedWhileWaiting: [Partial<QueueSettings>, Action[]] = [
  {
    mode: "single",
    concurrency: 1,
    canOptimisticallyMerge: false,
    pendingFailureDepth: 0,
    mergeMethod: "merge_commit",
    requiredStatuses: null,
    createPrsForTestingBranches: false,
    optimizationMode: "auto",
    batch: false,
    batchingMinSize: 1,
  },
  JSON.parse(
    '[{"kind":"submit","pr":2,"priority":0,"bad":false,"conflicts":false,"rejected":false,"mergeable":true,"targets":["c"]},{"kind":"submit","pr":6,"priority":0,"bad":true,"conflicts":false,"rejected":true,"mergeable":true,"targets":["a"]},{"kind":"submit","pr":1,"priority":null,"bad":false,"conflicts":false,"rejected":true,"mergeable":true,"targets":["b"]},{"kind":"restart","pr":2},{"kind":"settle","pick":0},{"kind":"ci","pick":1,"outcome":"pass"},{"kind":"deliver","pick":809839503,"twice":false},{"kind":"tick","minutes":1},{"kind":"ci","pick":0,"outcome":"pass"},{"kind":"settle","pick":0},{"kind":"ci","pick":1223948006,"outcome":"pass"},{"kind":"deliver","pick":1024818015,"twice":false},{"kind":"push_outside"},{"kind":"cancel","pr":6},{"kind":"settle","pick":0},{"kind":"deliver","pick":0,"twice":false},{"kind":"submit","pr":6,"priority":null,"bad":false,"conflicts":false,"rejected":false,"mergeable":true,"targets":["c"]},{"kind":"execute","crash":"none"},{"kind":"settle","pick":0},{"kind":"execute","crash":"none"},{"kind":"settle","pick":0},{"kind":"deliver","pick":0,"twice":false},{"kind":"tick","minutes":1},{"kind":"execute","crash":"none"},{"kind":"deliver","pick":0,"twice":false},{"kind":"deliver","pick":0,"twice":false},{"kind":"update_queue","settings":{"canOptimisticallyMerge":false}}]',
  ) as Action[],
];

// Hundreds of random sequences each: a busy CI machine needs more than the default 20 s; no test here is timed.
// Found by this property too: a run on the target is built on every proven PR, so a chain run on it holds them
// under its group, not riding ahead of it.
const provenUnderTheBase: [Partial<QueueSettings>, Action[]] = [
  { ...pinnedWhileWaiting[0], concurrency: 2 },
  JSON.parse(
    '[{"kind":"submit","pr":1,"priority":0,"bad":false,"conflicts":false,"rejected":false,"mergeable":true,"targets":[]},{"kind":"submit","pr":2,"priority":0,"bad":false,"conflicts":false,"rejected":false,"mergeable":true,"targets":["c"]},{"kind":"settle","pick":0},{"kind":"ci","pick":72253071,"outcome":"pass"},{"kind":"submit","pr":3,"priority":null,"bad":false,"conflicts":false,"rejected":true,"mergeable":true,"targets":["a"]},{"kind":"ci","pick":0,"outcome":"pass"},{"kind":"settle","pick":0},{"kind":"ci","pick":0,"outcome":"pass"},{"kind":"execute","crash":"none"},{"kind":"settle","pick":0},{"kind":"execute","crash":"none"},{"kind":"submit","pr":1,"priority":0,"bad":false,"conflicts":false,"rejected":true,"mergeable":true,"targets":["c"]},{"kind":"execute","crash":"none"},{"kind":"redeliver","pick":0},{"kind":"redeliver","pick":0},{"kind":"ci","pick":0,"outcome":"pass"},{"kind":"required_checks","none":false},{"kind":"execute","crash":"none"},{"kind":"redeliver","pick":0},{"kind":"submit","pr":4,"priority":0,"bad":false,"conflicts":false,"rejected":true,"mergeable":true,"targets":["c"]},{"kind":"push_outside"},{"kind":"execute","crash":"none"},{"kind":"deliver","pick":0,"twice":false},{"kind":"deliver","pick":0,"twice":false},{"kind":"push_pr","pr":1}]',
  ) as Action[],
];

// Found by both properties (seeds -2060032672 and -661648199): a chain run passes while the queue switches to
// parallel mode, vouching for the PR below it, and its landing is in flight when the lanes take over; it lands its
// PRs in the order they were proven, the line held them in the other.
const landingAcrossTheSwitch: [Partial<QueueSettings>, Action[]] = [
  { ...pinnedWhileWaiting[0], concurrency: 2 },
  JSON.parse(
    '[{"kind":"ci","pick":0,"outcome":"pass"},{"kind":"deliver","pick":0,"twice":false},{"kind":"submit","pr":1,"priority":0,"bad":false,"conflicts":false,"rejected":false,"mergeable":true,"targets":[]},{"kind":"execute","crash":"none"},{"kind":"submit","pr":3,"priority":0,"bad":false,"conflicts":false,"rejected":false,"mergeable":true,"targets":["c"]},{"kind":"ci","pick":0,"outcome":"fail"},{"kind":"update_queue","settings":{"mode":"parallel"}},{"kind":"deliver","pick":0,"twice":false},{"kind":"restart","pr":2},{"kind":"deliver","pick":0,"twice":false},{"kind":"execute","crash":"none"},{"kind":"settle","pick":0},{"kind":"execute","crash":"none"},{"kind":"deliver","pick":0,"twice":false},{"kind":"ci","pick":121441,"outcome":"pass"},{"kind":"required_checks","none":false},{"kind":"execute","crash":"replay"},{"kind":"settle","pick":0},{"kind":"settle","pick":0},{"kind":"settle","pick":0}]',
  ) as Action[],
];
const landingAcrossTheSwitchAtRest: [Partial<QueueSettings>, Action[]] = [
  { ...pinnedWhileWaiting[0], concurrency: 2 },
  JSON.parse(
    '[{"kind":"submit","pr":1,"priority":null,"bad":false,"conflicts":false,"rejected":false,"mergeable":true,"targets":["a"]},{"kind":"settle","pick":0},{"kind":"submit","pr":3,"priority":null,"bad":false,"conflicts":false,"rejected":false,"mergeable":true,"targets":["b"]},{"kind":"settle","pick":0},{"kind":"submit","pr":2,"priority":0,"bad":false,"conflicts":false,"rejected":true,"mergeable":true,"targets":["c"]},{"kind":"ci","pick":0,"outcome":"pass"},{"kind":"ci","pick":0,"outcome":"pass"},{"kind":"deliver","pick":0,"twice":false},{"kind":"deliver","pick":0,"twice":false},{"kind":"deliver","pick":0,"twice":false},{"kind":"execute","crash":"none"},{"kind":"deliver","pick":0,"twice":false},{"kind":"update_queue","settings":{"mode":"parallel"}},{"kind":"execute","crash":"replay"},{"kind":"settle","pick":0},{"kind":"submit","pr":1,"priority":0,"bad":false,"conflicts":false,"rejected":false,"mergeable":true,"targets":["b"]},{"kind":"settle","pick":0},{"kind":"deliver","pick":0,"twice":false},{"kind":"deliver","pick":0,"twice":false},{"kind":"settle","pick":0},{"kind":"settle","pick":0},{"kind":"deliver","pick":0,"twice":false},{"kind":"ci","pick":1676075058,"outcome":"fail"}]',
  ) as Action[],
];

describe("the proof planner over random event sequences", { timeout: 90_000 }, () => {
  it("holds every invariant after every step: runs within `concurrency`, the target only on tested commits", () => {
    fc.assert(
      fc.property(scenario, ([settings, actions]) => {
        simulate(settings, actions);
      }),
      { numRuns: 100, examples: [[landingAcrossTheSwitch], [landingAcrossTheSwitchAtRest]] },
    );
  }, 120_000);

  it("comes to rest with every PR merged, failed or cancelled, no broken PR merged and no branch left", () => {
    fc.assert(
      fc.property(scenario, ([settings, actions]) => {
        const simulation = simulate(settings, actions);
        simulation.drain();

        expectAtRest(simulation);
      }),
      {
        numRuns: 100,
        examples: [
          [pinnedWhileWaiting],
          [provenUnderTheBase],
          [landingAcrossTheSwitch],
          [landingAcrossTheSwitchAtRest],
        ],
      },
    );
  }, 120_000);
});
