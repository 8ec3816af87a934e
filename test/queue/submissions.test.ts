import { describe, expect, it } from "vitest";
import { pullRequestView } from "../../src/presentation/queue-views.ts";
import { aPr, aScenario, T0 } from "../support/queue-factories.ts";

describe("submissions", () => {
  it("records a submission with its id, time and reason", () => {
    const queue = aScenario({}, "paused");

    queue.on(aPr(1, { submissionId: "s-1" }));

    expect(queue.pr(1)).toMatchObject({ submissionId: "s-1", submittedAt: T0, state: "pending" });
    expect(queue.pr(1).history).toEqual([
      { state: "pending", at: T0, reason: "submitted", detail: "Submitted. Ready to be tested." },
    ]);
  });

  it("uses the default priority, medium, when the submission names none", () => {
    const queue = aScenario({}, "paused");

    queue.on(aPr(1));

    expect(pullRequestView(queue.state, 1)).toMatchObject({
      priorityValue: 100,
      priorityName: "medium",
      usedDefaultPriorityName: "medium",
      skipTheLine: false,
    });
  });

  it("keeps the submission when a queued PR is submitted again, changing only priority and noBatch", () => {
    const queue = aScenario({}, "paused").submit(1);

    queue.on(aPr(1, { submissionId: "another", priority: 200, noBatch: true }));

    expect(queue.pr(1)).toMatchObject({ submissionId: "sub-1", priorityValue: 200, noBatch: true });
    expect(pullRequestView(queue.state, 1)?.usedDefaultPriorityName).toBeUndefined();
  });

  it("keeps the priority when a queued PR is submitted again without one", () => {
    const queue = aScenario({}, "paused");
    queue.on(aPr(1, { priority: 10 }));

    const commands = queue.on(aPr(1));

    expect(queue.pr(1).priorityValue).toBe(10);
    expect(commands).toEqual([]);
  });

  it("starts a new submission when a terminal PR is submitted again", () => {
    const queue = aScenario({}, "paused").submit(1);
    queue.on({ type: "cancel_requested", prNumber: 1, reason: "cancelled_by_user" });

    queue.on(aPr(1, { submissionId: "sub-1-again" }));

    expect(queue.pr(1)).toMatchObject({ submissionId: "sub-1-again", state: "pending" });
    expect(queue.pr(1).history).toHaveLength(1);
  });

  it("refuses new submissions while draining but still takes priority changes", () => {
    const queue = aScenario({}, "paused").submit(1);
    queue.on({ type: "queue_updated", settings: {}, status: "draining" });

    queue.on(aPr(2));
    queue.on(aPr(1, { priority: 10 }));

    expect(queue.state.prs[2]).toBeUndefined();
    expect(queue.pr(1).priorityValue).toBe(10);
  });
});
