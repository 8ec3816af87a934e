import fc from "fast-check";
import type { QueueSettings } from "../../src/queue/index.ts";
import type { Action } from "./simulation.ts";
import { TESTING_TIMEOUT_MINUTES } from "./simulation.ts";

const prNumber = fc.integer({ min: 1, max: 6 });

/** Impacted targets over a small alphabet, so that lanes both meet and stay apart (docs/queue.md#parallel-lanes). */
const targets = fc.oneof(
  { weight: 1, arbitrary: fc.constant("ALL" as const) },
  { weight: 1, arbitrary: fc.constant([]) },
  { weight: 6, arbitrary: fc.subarray(["a", "b", "c"], { minLength: 1 }) },
);

const priority = fc.oneof(
  fc.constant(null),
  fc.constantFrom(0, 10, 100, 200),
  fc.integer({ min: 0, max: 255 }),
);

/** True about one time in ten. */
const rarely = fc.oneof(
  { weight: 9, arbitrary: fc.constant(false) },
  { weight: 1, arbitrary: fc.constant(true) },
);

const settingsChange: fc.Arbitrary<Extract<Action, { kind: "update_queue" }>> = fc
  .oneof(
    fc.constantFrom("running", "paused", "draining").map((status) => ({ status })),
    fc.integer({ min: 1, max: 3 }).map((concurrency) => ({ settings: { concurrency } })),
    fc.boolean().map((canOptimisticallyMerge) => ({ settings: { canOptimisticallyMerge } })),
    fc.integer({ min: 0, max: 2 }).map((pendingFailureDepth) => ({ settings: { pendingFailureDepth } })),
    fc.constantFrom("merge_commit", "squash", "rebase").map((mergeMethod) => ({ settings: { mergeMethod } })),
    fc.constantFrom("single", "parallel").map((mode) => ({ settings: { mode } })),
    fc.constantFrom(null, ["ci"]).map((requiredStatuses) => ({ settings: { requiredStatuses } })),
    fc.boolean().map((createPrsForTestingBranches) => ({ settings: { createPrsForTestingBranches } })),
    fc.constantFrom("off", "always").map((directMergeMode) => ({ settings: { directMergeMode } })),
  )
  .map((change) => ({ kind: "update_queue" as const, settings: {}, ...change }));

export const action: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("submit" as const),
      pr: prNumber,
      priority,
      bad: rarely,
      conflicts: rarely,
      rejected: rarely,
      mergeable: rarely.map((notMergeable) => !notMergeable),
      targets,
    }),
  },
  {
    weight: 10,
    arbitrary: fc.record({
      kind: fc.constant("execute" as const),
      crash: fc.oneof(
        { weight: 6, arbitrary: fc.constant("none" as const) },
        { weight: 1, arbitrary: fc.constant("replay" as const) },
        { weight: 1, arbitrary: fc.constant("lost" as const) },
      ),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("ci" as const),
      pick: fc.nat(),
      outcome: fc.constantFrom("pass", "pass", "fail", "flake", "pending"),
    }),
  },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant("settle" as const), pick: fc.nat() }) },
  {
    weight: 8,
    arbitrary: fc.record({ kind: fc.constant("deliver" as const), pick: fc.nat(), twice: fc.boolean() }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("redeliver" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("cancel" as const), pr: prNumber }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("push_pr" as const), pr: prNumber }) },
  { weight: 1, arbitrary: fc.constant({ kind: "push_outside" as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("tick" as const),
      minutes: fc.integer({ min: 1, max: TESTING_TIMEOUT_MINUTES + 5 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("restart" as const), pr: prNumber }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("mergeability" as const),
      pr: prNumber,
      mergeable: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: settingsChange },
  { weight: 1, arbitrary: rarely.map((none) => ({ kind: "required_checks" as const, none })) },
);

export const initialSettings: fc.Arbitrary<Partial<QueueSettings>> = fc.record({
  mode: fc.constantFrom("single", "parallel"),
  concurrency: fc.integer({ min: 1, max: 3 }),
  canOptimisticallyMerge: fc.boolean(),
  pendingFailureDepth: fc.integer({ min: 0, max: 2 }),
  mergeMethod: fc.constantFrom("merge_commit", "squash", "rebase"),
  requiredStatuses: fc.constantFrom(null, ["ci"]),
  createPrsForTestingBranches: fc.boolean(),
});
