import { describe, expect, it } from "vitest";
import { aScenario } from "../support/queue-factories.ts";

const confirming = { confirmFailures: true, mergeMethod: "merge_commit" } as const;
const CI_FAILED = "Required status ci failed: https://ci.example/1";

describe("flake evidence: a failure is confirmed before it fails a PR (confirmFailures)", () => {
  it("sidelines a PR whose run failed and restarts the PRs behind it at once, without it", () => {
    const queue = aScenario({ ...confirming, concurrency: 2 }).submit(1, 2);
    const behind = queue.runTesting(2);

    queue.failRun(1);

    expect(queue.pr(1)).toMatchObject({ state: "testing", sidelined: true });
    expect(queue.state.runs[behind.id]).toMatchObject({ status: "cancelled", endReason: "pr_ahead_failed" });
    expect(queue.inFlight("main")).toEqual([[2]]);
    expect(queue.runTesting(2).dependsOn).toEqual([]);
    expect(queue.line).toEqual([2, 1]);
  });

  it("tests it once more, alone, on the same base, in the bisection pool", () => {
    const queue = aScenario({ ...confirming, concurrency: 1 }).submit(1, 2);

    queue.failRun(1);

    expect(queue.inFlight("side")).toEqual([[1]]);
    expect(queue.runOf(1)).toMatchObject({
      purpose: "confirmation",
      failedRunId: "q-1",
      dependsOn: [],
      baseSha: "main-0",
    });
    expect(queue.pr(1).stateDetail).toBe(
      `Run q-1 failed; testing it once more, alone, before failing it: testing in run ${queue.runOf(1).id} on top of main.`,
    );
    expect(queue.inFlight("main")).toEqual([[2]]);
  });

  it("builds the confirmation run's branch as a new commit, so CI does not answer with the old failure", () => {
    const queue = aScenario(confirming).submit(1);
    const [failedBranch] = queue.commandsOf("create_test_branch");
    queue.advance(5);

    queue.failRun(1);

    const [confirmationBranch] = queue.commandsOf("create_test_branch");
    expect(confirmationBranch).toMatchObject({ runId: queue.runOf(1).id, baseSha: failedBranch?.baseSha });
    // Dated now and named after the run, its merge is a commit of its own however fast the clock moves.
    const confirmationId = queue.runOf(1).id;
    expect(confirmationBranch?.prs).toEqual([
      {
        ...failedBranch?.prs[0],
        title: `${failedBranch?.prs[0]?.title} (retested in run ${confirmationId})`,
        commitDate: queue.now,
      },
    ]);
    expect(confirmationBranch?.prs[0]?.commitDate).not.toBe(failedBranch?.prs[0]?.commitDate);
  });

  it("fails the PR when the confirmation run fails too, naming both runs", () => {
    const queue = aScenario(confirming).submit(1).failRun(1);
    const confirmation = queue.runTesting(1);

    queue.failRun(1);

    expect(queue.pr(1)).toMatchObject({
      state: "failed",
      stateReason: "tests_failed",
      stateDetail: `It failed again alone in run ${confirmation.id}, after run q-1 failed: ${CI_FAILED}`,
    });
    expect(queue.runs()).toHaveLength(2);
  });

  it("sends the PR back to the queue when the confirmation run passes: the first failure was a flake", () => {
    const queue = aScenario(confirming).submit(1).failRun(1);
    const confirmation = queue.runTesting(1);

    queue.passRun(1);

    expect(queue.pr(1).history.at(-2)).toMatchObject({
      state: "pending",
      reason: "cleared_by_retest",
      detail: `Run ${confirmation.id} passed with it on the side, after run q-1 failed; it goes back to the queue.`,
    });
    expect(queue.state.merging).toBeNull();
    expect(queue.inFlight("main")).toEqual([[1]]);
  });

  it("merges a PR cleared by its confirmation run once the main line tested it again", () => {
    const queue = aScenario(confirming).submit(1).failRun(1).passRun(1);
    const mainRun = queue.runTesting(1);

    queue.passRun(1);

    expect(queue.commandsOf("fast_forward_target")).toEqual([
      expect.objectContaining({ prNumbers: [1], sha: queue.state.runs[mainRun.id]?.testBranchSha }),
    ]);
    queue.mergeSucceeds();
    expect(queue.stateOf(1)).toBe("merged");
  });

  it("confirms the failure of a PR behind another once that one passed, on top of it", () => {
    const queue = aScenario({ ...confirming, concurrency: 2 })
      .submit(1, 2)
      .failRun(2);
    expect(queue.pr(2).stateDetail).toBe(`${CI_FAILED} It is waiting for #1 ahead of it before failing.`);

    queue.passRun(1);

    expect(queue.runOf(2)).toMatchObject({ purpose: "confirmation", failedRunId: "q-2", dependsOn: [1] });
    queue.mergeAll().passRun(2).passMainLine();
    expect([queue.stateOf(1), queue.stateOf(2)]).toEqual(["merged", "merged"]);
  });

  it("confirms the culprit that bisection found before failing it", () => {
    const queue = aScenario({ ...confirming, batch: true, batchingMinSize: 2, concurrency: 2 }).submit(1, 2);
    queue.failRun(1, 2).passRun(1);
    const bisectionRun = queue.runTesting(2);
    queue.failRun(2).passMainLine();
    const confirmation = queue.runTesting(2);
    expect(confirmation).toMatchObject({ purpose: "confirmation", failedRunId: bisectionRun.id });

    queue.failRun(2);

    expect(queue.pr(2)).toMatchObject({
      state: "failed",
      stateReason: "tests_failed",
      stateDetail: `It failed again alone in run ${confirmation.id}, after run ${bisectionRun.id} failed: ${CI_FAILED}`,
    });
  });

  it("with a pending failure depth and optimistic merging, waits for the run behind before confirming", () => {
    const queue = aScenario({
      ...confirming,
      concurrency: 2,
      canOptimisticallyMerge: true,
      pendingFailureDepth: 1,
    }).submit(1, 2);

    queue.failRun(1);

    expect(queue.pr(1)).toMatchObject({
      state: "pending_failure",
      stateDetail: `${CI_FAILED} It is waiting for up to 1 PRs behind it that contain it.`,
    });
    expect(queue.pr(1).sidelined).toBeUndefined();
    expect(queue.inFlight("side")).toEqual([]);
  });

  it("with a pending failure depth, merges the PR a passing run behind vouches for, without confirming it", () => {
    const queue = aScenario({
      ...confirming,
      concurrency: 2,
      canOptimisticallyMerge: true,
      pendingFailureDepth: 1,
    })
      .submit(1, 2)
      .failRun(1);

    queue.passRun(2).mergeAll();

    expect([queue.stateOf(1), queue.stateOf(2)]).toEqual(["merged", "merged"]);
    expect(queue.runs().filter((run) => run.purpose === "confirmation")).toEqual([]);
  });

  it("with a pending failure depth, confirms the PR once the run behind failed too", () => {
    const queue = aScenario({
      ...confirming,
      concurrency: 2,
      canOptimisticallyMerge: true,
      pendingFailureDepth: 1,
    })
      .submit(1, 2)
      .failRun(1);

    queue.failRun(2);

    expect(queue.inFlight("side")).toEqual([[1]]);
    expect(queue.runOf(1)).toMatchObject({ purpose: "confirmation", failedRunId: "q-1", dependsOn: [] });
    expect(queue.inFlight("main")).toEqual([[2]]);
    expect(queue.runTesting(2).dependsOn).toEqual([]);
  });

  it("without confirmFailures, fails a PR whose run failed at once, without testing it again", () => {
    const queue = aScenario({ confirmFailures: false }).submit(1);

    queue.failRun(1);

    expect(queue.pr(1)).toMatchObject({
      state: "failed",
      stateReason: "tests_failed",
      stateDetail: CI_FAILED,
    });
    expect(queue.runs()).toHaveLength(1);
    expect(queue.commandsOf("create_test_branch")).toEqual([]);
  });
});
