import { describe, expect, it } from "vitest";
import { aCheckRun, aCommitStatus, aPr, aScenario, branchShaOf, T0 } from "../support/queue-factories.ts";

describe("test runs", () => {
  it("starts a ready PR's run on the target head, on a branch named after the run", () => {
    const queue = aScenario().submit(1);

    expect(queue.stateOf(1)).toBe("testing");
    expect(queue.runOf(1)).toMatchObject({
      id: "q-1",
      testBranch: "mq/main/q-1",
      baseSha: "main-0",
      dependsOn: [],
    });
    expect(queue.commandsOf("create_test_branch")).toEqual([
      {
        type: "create_test_branch",
        key: "create-test-branch:q-1",
        runId: "q-1",
        branch: "mq/main/q-1",
        baseSha: "main-0",
        prs: [{ number: 1, headSha: "head-1", title: "Change 1", commitDate: T0 }],
        resolveRequiredStatusesOf: null,
        reproducible: false,
      },
    ]);
  });

  it("gives every run a new id from the queue's run sequence", () => {
    const queue = aScenario({ concurrency: 3 }).submit(1, 2, 3);

    expect([1, 2, 3].map((number) => queue.runOf(number).id)).toEqual(["q-1", "q-2", "q-3"]);
  });

  it("with concurrency N, tests the first N ready PRs at once, each on top of the ones ahead", () => {
    const queue = aScenario({ concurrency: 2 }).submit(1, 2, 3);

    expect([1, 2, 3].map((number) => queue.stateOf(number))).toEqual(["testing", "testing", "pending"]);
    expect(queue.runOf(2)).toMatchObject({ dependsOn: [1] });
  });

  it("builds the test branches of N runs started together at once, each from the target through the PRs ahead", () => {
    const queue = aScenario({ concurrency: 3 }, "paused").submit(1, 2, 3);

    queue.on({ type: "queue_updated", settings: {}, status: "running" });

    const merge = (number: number, runId: string) => ({
      number,
      headSha: `head-${number}`,
      title: `Change ${number}`,
      commitDate: queue.state.runs[runId]?.startedAt,
    });
    expect(queue.commandsOf("create_test_branch")).toEqual([
      expect.objectContaining({ runId: "q-1", baseSha: "main-0", prs: [merge(1, "q-1")] }),
      expect.objectContaining({ runId: "q-2", baseSha: "main-0", prs: [merge(1, "q-1"), merge(2, "q-2")] }),
      expect.objectContaining({
        runId: "q-3",
        baseSha: "main-0",
        prs: [merge(1, "q-1"), merge(2, "q-2"), merge(3, "q-3")],
      }),
    ]);
    expect(queue.runOf(3)).toMatchObject({ dependsOn: [1, 2], baseRunId: null, baseSha: "main-0" });
  });

  it("merges each PR ahead as its own run did, so the same merges make the same commits", () => {
    const queue = aScenario({ concurrency: 2 }).submit(1);
    const ownMerge = queue.commandsOf("create_test_branch")[0]?.prs[0];

    queue.advance(5).submit(2);

    expect(queue.commandsOf("create_test_branch")[0]?.prs[0]).toEqual(ownMerge);
  });

  it("builds a run on the tested commit of the run ahead once that exists", () => {
    const queue = aScenario({ concurrency: 2 }).submit(1);
    queue.on({ type: "test_branch_created", runId: "q-1", sha: "sha-1" });

    queue.submit(2);

    expect(queue.runOf(2)).toMatchObject({ dependsOn: [1], baseRunId: "q-1", baseSha: "sha-1" });
    expect(queue.commandsOf("create_test_branch")).toEqual([
      expect.objectContaining({
        runId: "q-2",
        baseSha: "sha-1",
        prs: [expect.objectContaining({ number: 2 })],
      }),
    ]);
  });

  it("fails the PR ahead, not the run's own, when the PR ahead does not merge on the way", () => {
    const queue = aScenario({ concurrency: 3 }).submit(1, 2, 3);

    queue.on({ type: "test_branch_conflict", runId: "q-3", prNumber: 2 });

    expect(queue.pr(2)).toMatchObject({ state: "failed", stateReason: "merge_conflict" });
    expect(queue.stateOf(1)).toBe("testing");
    expect(queue.runOf(3)).toMatchObject({ id: "q-4", dependsOn: [1] });
    expect(queue.pr(3).history.map((step) => step.reason)).toContain("pr_ahead_failed");
  });

  it("uses the queue's own required statuses without asking the repo", () => {
    const queue = aScenario({ requiredStatuses: ["ci", "lint"] }).submit(1);

    expect(queue.runOf(1)).toMatchObject({
      requiredStatuses: ["ci", "lint"],
      requiredStatusesSource: "merge_instance",
    });
    expect(queue.commandsOf("create_test_branch")[0]?.resolveRequiredStatusesOf).toBeNull();
  });

  it("asks for the repo's required statuses with the test branch when the queue sets none", () => {
    const queue = aScenario({ requiredStatuses: null }).submit(1);

    expect(queue.commandsOf("create_test_branch")[0]?.resolveRequiredStatusesOf).toBe("main");

    queue.on({
      type: "required_statuses_resolved",
      runId: "q-1",
      statuses: ["build"],
      source: "service_config",
    });
    expect(queue.runOf(1)).toMatchObject({
      requiredStatuses: ["build"],
      requiredStatusesSource: "service_config",
    });
  });

  it("counts the reports that arrived before the required statuses were resolved", () => {
    const queue = aScenario({ requiredStatuses: null }).submit(1);
    queue.report(1, aCheckRun());

    queue.on({
      type: "required_statuses_resolved",
      runId: "q-1",
      statuses: ["ci"],
      source: "service_config",
    });

    expect(queue.runOf(1).status).toBe("succeeded");
  });

  it("drops a report on a commit before its run knows it, and counts it when polled again", () => {
    const queue = aScenario().submit(1);
    queue.on({ type: "status_reported", sha: branchShaOf("q-1"), report: aCheckRun() });

    queue.createBranches();
    expect(queue.runOf(1).status).toBe("in_progress");
    queue.on({ type: "status_reported", sha: branchShaOf("q-1"), report: aCheckRun() });

    expect(queue.runOf(1).status).toBe("succeeded");
  });

  it("fails the PR at once with no_required_statuses when none are configured anywhere", () => {
    const queue = aScenario({ requiredStatuses: null }).submit(1);

    queue.on({
      type: "required_statuses_resolved",
      runId: "q-1",
      statuses: [],
      source: "repo_provider_branch_protection",
    });

    expect(queue.pr(1)).toMatchObject({ state: "failed", stateReason: "no_required_statuses" });
    expect(queue.pr(1).stateDetail).toContain("merge.required_statuses");
    // A branch an earlier, lost attempt of the command may have built is deleted as any failed run's is.
    expect(queue.commandsOf("delete_test_branch")).toHaveLength(1);
  });

  it("passes a run when every required status succeeded on its test branch commit", () => {
    const queue = aScenario({ requiredStatuses: ["ci", "lint"] }).submit(1);

    queue.report(1, aCheckRun({ name: "ci" }));
    expect(queue.stateOf(1)).toBe("testing");
    queue.report(1, aCommitStatus({ name: "lint" }));

    expect(queue.runOf(1).status).toBe("succeeded");
    expect(queue.stateOf(1)).toBe("tests_passed");
  });

  it("ignores statuses reported on another commit", () => {
    const queue = aScenario().submit(1).createBranches();

    queue.on({ type: "status_reported", sha: "some-other-commit", report: aCheckRun() });

    expect(queue.stateOf(1)).toBe("testing");
  });

  it.each(["success", "neutral", "skipped"])("counts a check concluding %s as passed", (conclusion) => {
    const queue = aScenario().submit(1);

    queue.report(1, aCheckRun({ conclusion }));

    expect(queue.runOf(1).status).toBe("succeeded");
  });

  it.each(["failure", "cancelled", "timed_out", "action_required", "startup_failure"])(
    "fails the run as soon as a check concludes %s",
    (conclusion) => {
      const queue = aScenario({ requiredStatuses: ["ci", "lint"] }).submit(1);

      queue.report(1, aCheckRun({ conclusion }));

      expect(queue.runOf(1).status).toBe("failed");
      expect(queue.pr(1)).toMatchObject({ state: "failed", stateReason: "tests_failed" });
      expect(queue.pr(1).stateDetail).toContain("Required status ci failed");
    },
  );

  it.each(["failure", "error"])("fails the run when a commit status is %s", (state) => {
    const queue = aScenario().submit(1);

    queue.report(1, aCommitStatus({ state }));

    expect(queue.runOf(1).status).toBe("failed");
  });

  it("does not fail the run for a status that is not required", () => {
    const queue = aScenario().submit(1);

    queue.report(1, aCheckRun({ name: "coverage", conclusion: "failure" }));

    expect(queue.stateOf(1)).toBe("testing");
  });

  it("does not let a late in-progress report of the same check undo its success", () => {
    const queue = aScenario({ requiredStatuses: ["ci", "lint"] }).submit(1);
    queue.report(1, aCheckRun({ id: 5 }));

    queue.report(1, aCheckRun({ id: 5, status: "in_progress", conclusion: null }));
    queue.report(1, aCheckRun({ name: "lint", id: 6 }));

    expect(queue.runOf(1).status).toBe("succeeded");
  });

  it("takes a re-run, a check run with a higher id, as the check's new state", () => {
    const queue = aScenario({ requiredStatuses: ["ci", "lint"] }).submit(1);
    queue.report(1, aCheckRun({ id: 5 }));

    queue.report(1, aCheckRun({ id: 9, status: "queued", conclusion: null }));
    queue.report(1, aCheckRun({ name: "lint", id: 10 }));

    expect(queue.runOf(1).status).toBe("in_progress");
  });

  it("ignores a report about an older check run or status than the one recorded", () => {
    const queue = aScenario().submit(1);
    queue.report(1, aCommitStatus({ id: 8, state: "pending" }));

    queue.report(1, aCommitStatus({ id: 3, state: "failure" }));

    expect(queue.runOf(1).status).toBe("in_progress");
  });

  it("times out a run testingTimeoutMinutes after it started", () => {
    const queue = aScenario({ testingTimeoutMinutes: 30 }).submit(1).createBranches();

    queue.advance(29).on({ type: "tick" });
    expect(queue.stateOf(1)).toBe("testing");

    queue.advance(1).on({ type: "tick" });
    expect(queue.runOf(1).status).toBe("failed");
    expect(queue.pr(1)).toMatchObject({ state: "failed", stateReason: "timeout" });
    expect(queue.pr(1).stateDetail).toBe("Required statuses ci did not finish within 30 minutes.");
  });

  it("fails a PR whose test branch does not merge cleanly, and rebuilds the runs behind without it", () => {
    const queue = aScenario({ concurrency: 2 }).submit(1, 2, 3);

    queue.on({ type: "test_branch_conflict", runId: "q-1", prNumber: 1 });

    expect(queue.pr(1)).toMatchObject({ state: "failed", stateReason: "merge_conflict" });
    expect(queue.state.runs["q-2"]?.status).toBe("cancelled");
    expect(queue.runOf(2)).toMatchObject({ id: "q-3", dependsOn: [] });
    expect(queue.runOf(3)).toMatchObject({ id: "q-4", dependsOn: [2] });
  });

  it("rebuilds a run on the target when a PR ahead that merged meanwhile did not merge on the way", () => {
    const queue = aScenario({ concurrency: 2 }).submit(1, 2);
    queue.on({ type: "test_branch_created", runId: "q-1", sha: branchShaOf("q-1") });
    queue.on({ type: "status_reported", sha: branchShaOf("q-1"), report: aCheckRun() });
    queue.mergeSucceeds();
    expect(queue.stateOf(1)).toBe("merged");

    queue.on({ type: "test_branch_conflict", runId: "q-2", prNumber: 1 });

    expect(queue.pr(2).history.map((step) => step.reason)).toContain("target_moved");
    expect(queue.runOf(2)).toMatchObject({ id: "q-3", dependsOn: [], baseSha: "main-1" });
  });

  describe("when a run timed out before its test branch was created", () => {
    // #1 and #2 time out; #1 waits for the runs behind it (optimistic, depth 2), #2 for #1 ahead of it,
    // and #3 started on top of #2, whose branch does not exist.
    function timedOutBeforeItsBranch() {
      const queue = aScenario({
        concurrency: 2,
        testingTimeoutMinutes: 10,
        canOptimisticallyMerge: true,
        pendingFailureDepth: 2,
      }).submit(1, 2, 3);
      queue.on({ type: "test_branch_created", runId: "q-1", sha: "sha-1" });
      queue.advance(10).on({ type: "tick" });
      expect([1, 2, 3].map((number) => queue.stateOf(number))).toEqual([
        "pending_failure",
        "pending_failure",
        "testing",
      ]);
      return queue;
    }

    it("still fails the PR on a conflict reported for that branch, and rebuilds what was built on it", () => {
      const queue = timedOutBeforeItsBranch();

      queue.on({ type: "test_branch_conflict", runId: "q-2", prNumber: 2 });

      expect(queue.pr(2)).toMatchObject({ state: "failed", stateReason: "merge_conflict" });
      expect(queue.runOf(3)).toMatchObject({ dependsOn: [1], baseSha: "sha-1" });
    });

    it("builds the run behind from the target through both PRs ahead, without waiting for the branch", () => {
      const queue = timedOutBeforeItsBranch();

      expect(queue.runOf(3)).toMatchObject({ dependsOn: [1, 2], baseRunId: null, baseSha: "main-0" });
    });
  });

  it("deletes a failed run's test branch when the run ends", () => {
    const queue = aScenario().submit(1);

    queue.fail(1);

    expect(queue.commandsOf("delete_test_branch")).toEqual([
      { type: "delete_test_branch", key: "delete-test-branch:q-1", runId: "q-1", branch: "mq/main/q-1" },
    ]);
  });

  it("keeps a passed run's branch until its PR merged, then deletes it", () => {
    const queue = aScenario().submit(1).pass(1);
    expect(queue.commandsOf("delete_test_branch")).toEqual([]);

    queue.mergeSucceeds();

    expect(queue.commandsOf("delete_test_branch")).toEqual([expect.objectContaining({ runId: "q-1" })]);
  });

  it("opens a draft PR for the test branch with createPrsForTestingBranches and closes it when the run ends", () => {
    const queue = aScenario({ createPrsForTestingBranches: true }).submit(1);

    queue.createBranches();
    expect(queue.commandsOf("open_test_pull_request")).toEqual([
      expect.objectContaining({
        runId: "q-1",
        branch: "mq/main/q-1",
        targetBranch: "main",
        title: expect.stringContaining("#1"),
        body: expect.stringContaining("Tests #1 for the merge queue of main."),
      }),
    ]);

    queue.fail(1);
    expect(queue.commandsOf("close_test_pull_request")).toEqual([expect.objectContaining({ runId: "q-1" })]);
  });

  it("ignores a branch creation reported again", () => {
    const queue = aScenario().submit(1).createBranches();

    const commands = queue.on({ type: "test_branch_created", runId: "q-1", sha: branchShaOf("q-1") });

    expect(commands).toEqual([]);
  });

  it("keeps the PR submitted in a paused queue waiting", () => {
    const queue = aScenario({}, "paused");

    queue.on(aPr(1));

    expect(queue.stateOf(1)).toBe("pending");
    expect(queue.state.runs).toEqual({});
  });

  it("keeps a run's timeout clock from its start, not from its branch's creation", () => {
    const queue = aScenario({ testingTimeoutMinutes: 10 }).submit(1);

    queue.advance(10);
    queue.on({ type: "tick" });

    expect(queue.pr(1).stateDetail).toBe("The test branch was not created within 10 minutes.");
  });
});
