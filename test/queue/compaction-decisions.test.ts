// Finished PRs and runs leave the state after FINISHED_RETENTION_MS. No rule of the core may need them by then: a
// step on the compacted state decides exactly what the same step on the whole state decides, however late it is.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compact, FINISHED_RETENTION_MS } from "../../src/queue/compaction.ts";
import { observedFailureRate } from "../../src/queue/batching.ts";
import { type QueueEvent, type QueueSettings, type QueueState, step } from "../../src/queue/index.ts";
import { aPr, aQueue, T0 } from "../support/queue-factories.ts";
import { action, initialSettings } from "./actions.ts";
import { Simulation } from "./simulation.ts";

const HOUR_MS = 3_600_000;

/** Results of the queue's own commands: they come back within minutes, not hours. */
const commandResults: ReadonlySet<QueueEvent["type"]> = new Set([
  "test_branch_created",
  "test_branch_conflict",
  "required_statuses_resolved",
  "merge_succeeded",
  "merge_failed",
  "direct_merge_checked",
]);

/** Each event the simulated queue receives, checked against the compacted state, hours later too if it may. */
class CompactingSimulation extends Simulation {
  override receive(event: QueueEvent): void {
    const delays = commandResults.has(event.type)
      ? [0]
      : [0, FINISHED_RETENTION_MS + 1, FINISHED_RETENTION_MS + 30 * HOUR_MS];
    for (const delay of delays) {
      const now = this.now + delay;
      const whole = step(this.state, event, now);
      const compacted = step(compact(this.state, now), event, now);
      expect(compacted.commands).toEqual(whole.commands);
      expect(compact(compacted.state, now)).toEqual(compact(whole.state, now));
    }
    super.receive(event);
  }
}

const settings: fc.Arbitrary<Partial<QueueSettings>> = fc
  .tuple(initialSettings, fc.integer({ min: 1, max: 4 }), fc.boolean())
  .map(([initial, batchingMinSize, adaptiveBatching]) => ({
    ...initial,
    batch: true,
    batchingMinSize,
    adaptiveBatching,
    batchingMaxWaitTimeMinutes: 0,
  }));

describe("compaction", () => {
  it("never changes a decision: a step on the compacted state emits and leaves what it does on the whole", () => {
    fc.assert(
      fc.property(settings, fc.array(action, { minLength: 20, maxLength: 120 }), (initial, actions) => {
        const simulation = new CompactingSimulation(initial);
        for (const next of actions) simulation.apply(next);
      }),
      { numRuns: 60 },
    );
  });

  it("keeps the PRs adaptive batching judges the failure rate by, however long the queue was idle", () => {
    const decided = (adaptiveBatching: boolean): QueueState => {
      const settings = { batch: true, batchingMinSize: 1, batchingMaxWaitTimeMinutes: 0, adaptiveBatching };
      let state = step(aQueue(settings), aPr(1), T0).state;
      const runId = state.prs[1]!.testRunId!;
      state = step(state, { type: "test_branch_created", runId, sha: "tested-1" }, T0).state;
      const report = { kind: "status", name: "ci", id: 1, state: "failure", url: "" } as const;
      return step(state, { type: "status_reported", sha: "tested-1", report }, T0).state;
    };
    const idleUntil = T0 + FINISHED_RETENTION_MS + 10 * HOUR_MS;

    const adaptive = decided(true);
    expect(adaptive.prs[1]!.state).toBe("failed");
    expect(observedFailureRate(compact(adaptive, idleUntil))).toBe(observedFailureRate(adaptive));
    expect(compact(decided(false), idleUntil).prs[1]).toBeUndefined();
  });
});
