import { describe, expect, it } from "vitest";
import { queueView } from "../../src/presentation/queue-views.ts";
import { aScenario } from "../support/queue-factories.ts";

describe("queue states and settings", () => {
  it("starts no run while paused, but lets runs in flight finish and keeps their results", () => {
    const queue = aScenario().submit(1);
    queue.on({ type: "queue_updated", settings: {}, status: "paused" });

    queue.submit(2).pass(1);

    expect(queue.stateOf(1)).toBe("tests_passed");
    expect(queue.stateOf(2)).toBe("pending");
    expect(queue.state.merging).toBeNull();
  });

  it("merges what passed and starts runs when resumed", () => {
    const queue = aScenario().submit(1);
    queue.on({ type: "queue_updated", settings: {}, status: "paused" });
    queue.submit(2).pass(1);

    queue.on({ type: "queue_updated", settings: {}, status: "running" });

    expect(queue.state.merging?.prNumbers).toEqual([1]);
    expect(queue.runOf(2).dependsOn).toEqual([1]);
  });

  it("tests and merges the PRs already queued while draining, and stays draining when empty", () => {
    const queue = aScenario().submit(1);
    queue.on({ type: "queue_updated", settings: {}, status: "draining" });

    queue.pass(1).mergeSucceeds();

    expect(queue.stateOf(1)).toBe("merged");
    expect(queueView(queue.state).state).toBe("draining");
  });

  it("switches modes only once the runs in flight ended", () => {
    const queue = aScenario().submit(1, 2);

    queue.on({ type: "queue_updated", settings: { mode: "parallel" } });
    expect(queueView(queue.state)).toMatchObject({ state: "switching_modes", mode: "single" });

    queue.pass(1);

    expect(queueView(queue.state)).toMatchObject({ state: "running", mode: "parallel" });
    expect(queue.stateOf(2)).toBe("not_ready");
    expect(queue.state.merging?.prNumbers).toEqual([1]);
  });

  it("applies a mode change at once when nothing is in flight", () => {
    const queue = aScenario({}, "paused");

    queue.on({ type: "queue_updated", settings: { mode: "parallel" } });

    expect(queueView(queue.state)).toMatchObject({ state: "paused", mode: "parallel" });
  });

  it("cancels no run when concurrency is lowered, and starts fewer afterwards", () => {
    const queue = aScenario({ concurrency: 2 }).submit(1, 2, 3);

    queue.on({ type: "queue_updated", settings: { concurrency: 1 } });
    expect([1, 2].map((number) => queue.stateOf(number))).toEqual(["testing", "testing"]);

    queue.pass(1).mergeSucceeds();
    expect(queue.stateOf(3)).toBe("pending");
  });

  it("starts more runs when concurrency is raised", () => {
    const queue = aScenario({ concurrency: 1 }).submit(1, 2);

    queue.on({ type: "queue_updated", settings: { concurrency: 2 } });

    expect(queue.stateOf(2)).toBe("testing");
  });

  it("changes nothing for an update repeating the current settings", () => {
    const queue = aScenario({ requiredStatuses: ["ci"] });
    const before = queue.state;

    queue.on({
      type: "queue_updated",
      settings: { requiredStatuses: ["ci"], concurrency: 1 },
      status: "running",
    });

    expect(queue.state).toBe(before);
  });

  it("keeps the required statuses a run resolved when the queue's change", () => {
    const queue = aScenario({ requiredStatuses: ["ci"] }).submit(1);

    queue.on({ type: "queue_updated", settings: { requiredStatuses: ["ci", "e2e"] } });

    expect(queue.runOf(1).requiredStatuses).toEqual(["ci"]);
  });
});
