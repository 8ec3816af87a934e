import { describe, expect, it } from "vitest";
import { aScenario } from "../support/queue-factories.ts";

const confirming = { confirmFailures: true, mergeMethod: "merge_commit" } as const;

describe("flake evidence: a failure is confirmed before it fails a PR (confirmFailures)", () => {
  it("tests a PR whose run failed once more, alone, on the same base", () => {
    const queue = aScenario(confirming).submit(1);

    queue.fail(1);

    expect(queue.stateOf(1)).toBe("testing");
    expect(queue.runOf(1)).toMatchObject({
      id: "q-2",
      purpose: "confirmation",
      failedRunId: "q-1",
      dependsOn: [],
      baseSha: "main-0",
    });
    expect(queue.commandsOf("create_test_branch")).toEqual([
      expect.objectContaining({
        runId: "q-2",
        baseSha: "main-0",
        prs: [expect.objectContaining({ number: 1 })],
      }),
    ]);
    expect(queue.pr(1).stateDetail).toBe(
      "Run q-1 failed; testing it once more, alone, before failing it: testing in run q-2 on top of main.",
    );
    expect(queue.pr(1).history.map((step) => step.state)).toEqual([
      "pending",
      "testing",
      "pending_failure",
      "testing",
    ]);
  });

  it("fails the PR when the confirmation run fails too, naming both runs", () => {
    const queue = aScenario(confirming).submit(1).fail(1);

    queue.fail(1);

    expect(queue.pr(1)).toMatchObject({ state: "failed", stateReason: "tests_failed" });
    expect(queue.pr(1).stateDetail).toContain("It failed again alone in run q-2, after run q-1 failed.");
    expect(queue.runs()).toHaveLength(2);
  });

  it("merges the PR when the confirmation run passes: the first failure was a flake", () => {
    const queue = aScenario(confirming).submit(1).fail(1);

    queue.pass(1);

    expect(queue.commandsOf("fast_forward_target")).toEqual([
      expect.objectContaining({ prNumbers: [1], sha: queue.state.runs["q-2"]?.testBranchSha }),
    ]);
    queue.mergeSucceeds();
    expect(queue.stateOf(1)).toBe("merged");
  });

  it("confirms the failure of a PR behind another once that one passed, on top of it", () => {
    const queue = aScenario({ ...confirming, concurrency: 2 })
      .submit(1, 2)
      .fail(2);
    expect(queue.pr(2).stateDetail).toContain("waiting for #1 ahead of it before failing");

    queue.pass(1);

    expect(queue.runOf(2)).toMatchObject({ purpose: "confirmation", failedRunId: "q-2", dependsOn: [1] });
    queue.mergeAll().pass(2).mergeAll();
    expect([queue.stateOf(1), queue.stateOf(2)]).toEqual(["merged", "merged"]);
  });

  it("keeps the main line going while a failure is confirmed in the bisection pool", () => {
    const queue = aScenario({ ...confirming, concurrency: 1 }).submit(1, 2);

    queue.fail(1);

    expect(queue.runTesting(1)).toMatchObject({ purpose: "confirmation" });
    expect(queue.runTesting(2)).toMatchObject({ dependsOn: [1] });
    expect(queue.runTesting(2).purpose).toBeUndefined();
  });

  it("confirms the culprit that bisection found before failing it", () => {
    const queue = aScenario({ ...confirming, batch: true, batchingMinSize: 2, concurrency: 2 }).submit(1, 2);
    queue.fail(1).passRun(1);
    const bisectionRun = queue.runTesting(2);

    queue.failRun(2);

    expect(queue.runOf(2)).toMatchObject({ purpose: "confirmation", failedRunId: bisectionRun.id });
    queue.failRun(2);
    expect(queue.pr(2)).toMatchObject({ state: "failed", stateReason: "tests_failed" });
    expect(queue.pr(2).stateDetail).toContain(`after run ${bisectionRun.id} failed`);
  });

  it("with a pending failure depth, confirms only once the runs behind failed too", () => {
    const queue = aScenario({
      ...confirming,
      concurrency: 2,
      canOptimisticallyMerge: true,
      pendingFailureDepth: 1,
    })
      .submit(1, 2)
      .fail(1);
    expect(queue.stateOf(1)).toBe("pending_failure");

    queue.fail(2);

    expect(queue.runOf(1)).toMatchObject({ purpose: "confirmation", failedRunId: "q-1", dependsOn: [] });
    expect(queue.pr(2).stateDetail).toContain("waiting for #1 ahead of it before failing");
  });

  it("without confirmFailures, fails a PR whose run failed at once, without testing it again", () => {
    const queue = aScenario({ confirmFailures: false }).submit(1);

    queue.fail(1);

    expect(queue.pr(1)).toMatchObject({
      state: "failed",
      stateReason: "tests_failed",
      stateDetail: "Required status ci failed: https://ci.example/1",
    });
    expect(queue.runs()).toHaveLength(1);
    expect(queue.commandsOf("create_test_branch")).toEqual([]);
  });
});
