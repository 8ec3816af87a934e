import { describe, expect, it } from "vitest";
import { initialQueueState } from "../../src/queue/index.ts";
import { aQueue, aScenario, QueueScenario } from "../support/queue-factories.ts";

describe("target branch moves", () => {
  it("rebuilds every run on the new head when someone pushes outside the queue", () => {
    const queue = aScenario({ concurrency: 2 }).submit(1, 2).pass(1);
    queue.mergeSucceeds();

    queue.on({ type: "target_branch_moved", sha: "outside-1" });

    expect(queue.state.runs["q-2"]?.status).toBe("cancelled");
    expect(queue.pr(2).history.at(-2)).toMatchObject({ state: "pending", reason: "target_moved" });
    expect(queue.runOf(2)).toMatchObject({ baseSha: "outside-1", basisSha: "outside-1", dependsOn: [] });
  });

  it("rebuilds PRs that passed but did not merge yet", () => {
    const queue = aScenario({ concurrency: 2 }).submit(1, 2).pass(2);

    queue.on({ type: "target_branch_moved", sha: "outside-1" });

    expect(queue.pr(2).history.map((step) => step.state)).toEqual([
      "pending",
      "testing",
      "tests_passed",
      "pending",
      "testing",
    ]);
  });

  it("recognises the push of its own merge", () => {
    const queue = aScenario().submit(1).pass(1).mergeSucceeds().submit(2);

    const commands = queue.on({ type: "target_branch_moved", sha: "main-1" });

    expect(commands).toEqual([]);
    expect(queue.stateOf(2)).toBe("testing");
  });

  it("recognises a late push webhook of an older merge of its own", () => {
    const queue = aScenario().submit(1).pass(1).mergeSucceeds().submit(2).pass(2).mergeSucceeds().submit(3);

    const commands = queue.on({ type: "target_branch_moved", sha: "main-1" });

    expect(commands).toEqual([]);
  });

  it("decides a push seen during a merge by the merge's result: its own merge changes nothing", () => {
    const queue = aScenario({ concurrency: 2 }).submit(1, 2).pass(1);

    queue.on({ type: "target_branch_moved", sha: "main-1" });
    expect(queue.state.target.headsSeenWhileMerging).toEqual(["main-1"]);
    queue.mergeSucceeds();

    expect(queue.stateOf(2)).toBe("testing");
    expect(queue.runOf(2).id).toBe("q-2");
  });

  it("decides a push seen during a merge by the merge's result: another head was pushed from outside", () => {
    const queue = aScenario({ concurrency: 2 }).submit(1, 2).pass(1);

    queue.on({ type: "target_branch_moved", sha: "outside-1" });
    queue.mergeSucceeds();

    expect(queue.stateOf(1)).toBe("merged");
    expect(queue.runOf(2)).toMatchObject({ id: "q-3", baseSha: "outside-1" });
  });

  it("ignores a push webhook for the head it already knows", () => {
    const queue = aScenario().submit(1);

    expect(queue.on({ type: "target_branch_moved", sha: "main-0" })).toEqual([]);
  });

  it("a queue created before its branch tests nothing until a push shows the branch, then tests on it", () => {
    const { queueId, targetBranch, testBranchPrefix, settings } = aQueue();
    const queue = new QueueScenario(
      initialQueueState({ queueId, targetBranch, testBranchPrefix, settings, targetHeadSha: null }),
    );
    queue.submit(1);
    expect(queue.stateOf(1)).toBe("pending");
    expect(queue.state.runs).toEqual({});

    queue.on({ type: "target_branch_moved", sha: "created-1" });

    expect(queue.stateOf(1)).toBe("testing");
    expect(queue.runOf(1)).toMatchObject({ baseSha: "created-1", basisSha: "created-1" });
    expect(queue.state.target.awaitingBranch).toBeUndefined();
  });
});
