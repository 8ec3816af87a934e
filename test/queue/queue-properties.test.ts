import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { OptimizationMode, QueueEvent, QueueSettings } from "../../src/queue/index.ts";
import { aCheckRun, aScenario, branchShaOf } from "../support/queue-factories.ts";
import { expectAtRest } from "../support/queue-at-rest.ts";
import { action, initialSettings } from "./actions.ts";
import type { Action } from "./simulation.ts";
import { Simulation } from "./simulation.ts";

const simulate = Simulation.played;

const scenario = fc.tuple(initialSettings, fc.array(action, { minLength: 20, maxLength: 150 }));

/** docs/queue.md#batching-bisection-and-flakes: batches, their wait and adaptive size, the bisection pool, confirmations. */
function batchSettings(
  optimizationModes: readonly OptimizationMode[],
  confirmFailures: fc.Arbitrary<boolean>,
): fc.Arbitrary<Partial<QueueSettings>> {
  const batching = fc.record({
    batch: fc.oneof(
      { weight: 4, arbitrary: fc.constant(true) },
      { weight: 1, arbitrary: fc.constant(false) },
    ),
    batchingMinSize: fc.integer({ min: 1, max: 5 }),
    batchingMaxWaitTimeMinutes: fc.integer({ min: 0, max: 10 }),
    bisectionConcurrency: fc.oneof(fc.constant(null), fc.integer({ min: 1, max: 3 })),
    optimizationMode: fc.constantFrom(...optimizationModes),
    confirmFailures,
    adaptiveBatching: fc.boolean(),
  });
  return fc.tuple(initialSettings, batching).map(([settings, batched]) => ({ ...settings, ...batched }));
}

// Found by the batch property: in parallel mode #3's run (lane b, on #1) passes and vouches for #1, which is tested
// in one batch with #2 of lane c; that batch is cancelled, and #2 was left testing in it, a run no longer in flight.
const vouchedOutOfABatch: [Partial<QueueSettings>, Action[]] = [
  {
    mode: "parallel",
    concurrency: 2,
    canOptimisticallyMerge: true,
    pendingFailureDepth: 0,
    mergeMethod: "merge_commit",
    requiredStatuses: null,
    createPrsForTestingBranches: false,
    batch: true,
    batchingMinSize: 2,
    batchingMaxWaitTimeMinutes: 0,
    bisectionConcurrency: 1,
    optimizationMode: "bisection_skip_redundant_tests",
    confirmFailures: false,
    adaptiveBatching: false,
  },
  JSON.parse(
    '[{"kind":"submit","pr":2,"priority":null,"bad":false,"conflicts":false,"rejected":false,"mergeable":true,"targets":["c"]},{"kind":"submit","pr":1,"priority":0,"bad":false,"conflicts":false,"rejected":false,"mergeable":true,"targets":["b","c"]},{"kind":"submit","pr":1,"priority":null,"bad":false,"conflicts":true,"rejected":false,"mergeable":true,"targets":["b"]},{"kind":"submit","pr":3,"priority":0,"bad":false,"conflicts":false,"rejected":false,"mergeable":true,"targets":["b"]},{"kind":"deliver","pick":0,"twice":false},{"kind":"settle","pick":0},{"kind":"execute","crash":"none"},{"kind":"execute","crash":"lost"},{"kind":"ci","pick":0,"outcome":"pass"},{"kind":"ci","pick":397944437,"outcome":"pass"},{"kind":"redeliver","pick":0},{"kind":"settle","pick":0},{"kind":"cancel","pr":1},{"kind":"push_pr","pr":1},{"kind":"cancel","pr":1},{"kind":"ci","pick":0,"outcome":"pass"},{"kind":"restart","pr":1},{"kind":"settle","pick":0},{"kind":"settle","pick":0},{"kind":"redeliver","pick":0},{"kind":"redeliver","pick":0},{"kind":"ci","pick":0,"outcome":"pass"}]',
  ) as Action[],
];

const batchScenario = fc.tuple(
  batchSettings(["bisection_skip_redundant_tests", "off"], fc.boolean()),
  fc.array(action, { minLength: 20, maxLength: 150 }),
);

/**
 * docs/queue.md#parallel-lanes: a parallel queue with room for several lanes at once, mostly merging with merge_commit, where
 * a lane that merges second cannot fast-forward.
 */
const parallelScenario = fc.tuple(
  fc
    .tuple(initialSettings, fc.integer({ min: 2, max: 4 }), fc.boolean())
    .map(([settings, concurrency, mergeCommits]): Partial<QueueSettings> => ({
      ...settings,
      mode: "parallel",
      concurrency,
      ...(mergeCommits ? { mergeMethod: "merge_commit" } : {}),
    })),
  fc.array(action, { minLength: 20, maxLength: 150 }),
);

/** PR numbers whose changes break CI, whenever they are submitted. */
const brokenPrs = fc.uniqueArray(fc.integer({ min: 1, max: 6 }), { maxLength: 3 });

/**
 * Actions where CI reports only what the tested code deserves (it fails exactly the commits holding a broken
 * PR, never at random), each PR is broken or not for good, and no webhook is received twice.
 */
function withoutFlakes(actions: readonly Action[], broken: readonly number[]): Action[] {
  return actions.flatMap((next): Action[] => {
    if (next.kind === "ci" && (next.outcome === "fail" || next.outcome === "flake")) {
      return [{ ...next, outcome: "pass" }];
    }
    if (next.kind === "submit") return [{ ...next, bad: broken.includes(next.pr) }];
    if (next.kind === "deliver") return [{ ...next, twice: false }];
    return next.kind === "redeliver" ? [] : [next];
  });
}

// Hundreds of random sequences each: a busy CI machine needs more than the default 20 s; no test here is timed.
describe("queue invariants over random event sequences", { timeout: 90_000 }, () => {
  // Checked after every step (see invariants.ts and simulation.ts): every PR queued or terminal with its
  // reason; queue order; one test branch per run; runs built on their predicted base; the target only
  // moved to tested commits, or in parallel mode to tested content plus merges of disjoint lanes
  // (fake-github.ts); each run tests the target plus the PRs ahead it depends on plus its own; runs depend on
  // their lane only, and a PR merges after the PRs ahead in its lane (lane-checks.ts); no PR shown testing
  // before its required statuses are known; command keys unique; repeated webhooks and results no-ops.
  it("holds every invariant after every step, through crashes, duplicated and reordered webhooks", () => {
    fc.assert(
      fc.property(scenario, ([settings, actions]) => {
        simulate(settings, actions);
      }),
      { numRuns: 150 },
    );
  });

  it("comes to rest with every PR merged, failed or cancelled, no test branch left, and GitHub agreeing", () => {
    fc.assert(
      fc.property(scenario, ([settings, actions]) => {
        const simulation = simulate(settings, actions);
        simulation.drain();

        expect(simulation.state.line).toEqual([]);
        expect([...simulation.github.branches.keys()]).toEqual([]);
        expect([...simulation.github.testPullRequests]).toEqual([]);
        const mergedByQueue = Object.values(simulation.state.prs)
          .filter((pr) => pr.state === "merged")
          .map((pr) => pr.number);
        const mergedOnGitHub = [...simulation.github.prs.values()]
          .filter((pr) => pr.merged)
          .map((pr) => pr.number);
        expect(new Set(mergedByQueue)).toEqual(new Set(mergedOnGitHub));
        for (const prNumber of mergedByQueue) expect(simulation.github.pullRequest(prNumber).bad).toBe(false);
      }),
      { numRuns: 100 },
    );
  });

  it("in parallel mode, keeps every lane's order and merges only tested code, lanes apart", () => {
    fc.assert(
      fc.property(parallelScenario, ([settings, actions]) => {
        const simulation = simulate(settings, actions);
        simulation.drain();

        for (const pr of Object.values(simulation.state.prs)) {
          expect(["merged", "failed", "cancelled"]).toContain(pr.state);
          if (pr.state === "merged") expect(simulation.github.pullRequest(pr.number).bad).toBe(false);
        }
      }),
      { numRuns: 100 },
    );
  });

  it("holds every invariant after every step with batches, their wait and bisection", () => {
    fc.assert(
      fc.property(batchScenario, ([settings, actions]) => {
        simulate(settings, actions);
      }),
      { numRuns: 150, examples: [[vouchedOutOfABatch]] },
    );
  });

  it("with batches, comes to rest with every PR decided, merging only tested code and no broken PR", () => {
    fc.assert(
      fc.property(batchScenario, ([settings, actions]) => {
        const simulation = simulate(settings, actions);
        simulation.drain();

        expectAtRest(simulation);
      }),
      { numRuns: 100, examples: [[vouchedOutOfABatch]] },
    );
  });

  it("when CI never flakes, finds every broken PR of a failed batch and fails no other on its tests", () => {
    fc.assert(
      fc.property(
        batchSettings(["bisection_skip_redundant_tests", "off"], fc.boolean()),
        brokenPrs,
        fc.array(action, { minLength: 20, maxLength: 150 }),
        (settings, broken, actions) => {
          const simulation = simulate(settings, withoutFlakes(actions, broken));
          simulation.drain();

          for (const pr of Object.values(simulation.state.prs)) {
            const isBroken = broken.includes(pr.number);
            if (isBroken) expect(pr.state, `broken #${pr.number}`).not.toBe("merged");
            if (pr.state === "failed" && pr.stateReason === "tests_failed") {
              expect(isBroken, `#${pr.number} failed its tests: ${pr.stateDetail}`).toBe(true);
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it("decides a run the same whatever the order and duplication of its status webhooks", () => {
    const check = fc.record({ name: fc.constantFrom("ci", "lint", "docs"), passes: fc.boolean() });
    fc.assert(
      fc.property(
        fc.uniqueArray(check, { selector: (c) => c.name, minLength: 1, maxLength: 3 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.infiniteStream(fc.nat()),
        (checks, duplicates, shuffle) => {
          const sha = branchShaOf("q-1");
          const webhooks: QueueEvent[] = checks.flatMap(({ name, passes }, index) => [
            {
              type: "status_reported",
              sha,
              report: aCheckRun({ name, id: index + 1, status: "queued", conclusion: null }),
            },
            {
              type: "status_reported",
              sha,
              report: aCheckRun({ name, id: index + 1, status: "in_progress", conclusion: null }),
            },
            {
              type: "status_reported",
              sha,
              report: aCheckRun({ name, id: index + 1, conclusion: passes ? "success" : "failure" }),
            },
          ]);
          const delivered = [
            ...webhooks,
            ...duplicates.map((pick) => webhooks[pick % webhooks.length] as QueueEvent),
          ];
          const random = shuffle[Symbol.iterator]();
          for (let index = delivered.length - 1; index > 0; index--) {
            const other = (random.next().value as number) % (index + 1);
            [delivered[index], delivered[other]] = [
              delivered[other] as QueueEvent,
              delivered[index] as QueueEvent,
            ];
          }
          const queue = aScenario({ requiredStatuses: checks.map((c) => c.name) })
            .submit(1)
            .createBranches();

          for (const event of delivered) queue.on(event);

          expect(queue.runOf(1).status).toBe(checks.every((c) => c.passes) ? "succeeded" : "failed");
        },
      ),
    );
  });
});
