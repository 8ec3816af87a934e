import { describe, expect, it } from "vitest";
import type { QueueCommand, QueueEvent, StatusReport } from "../../src/queue/index.ts";
import { aCheckRun, aCommitStatus, aPr, aScenario, type QueueScenario } from "../support/queue-factories.ts";

type Facts = Extract<QueueEvent, { type: "direct_merge_checked" }>["facts"];

/** GitHub's facts about a PR head that holds the target, with these reports on it. */
function onTopOfTarget(...reports: StatusReport[]): Facts {
  return { kind: "read", containsTarget: true, requiredStatuses: ["ci"], reports };
}

type Check = Extract<QueueCommand, { type: "check_direct_merge" }>;

/** The check the queue asked for in its latest step. */
function askedCheck(queue: QueueScenario): Check {
  const [check] = queue.commandsOf("check_direct_merge");
  if (check === undefined) throw new Error("no direct merge check was asked for");
  return check;
}

/** The shell's answer to a check. */
function answer(queue: QueueScenario, check: Check, facts: Facts): void {
  const { prNumber, headSha, targetSha } = check;
  queue.on({ type: "direct_merge_checked", prNumber, headSha, targetSha, facts });
}

/** The shell answers the check the queue asked for in its latest step. */
function answerCheck(queue: QueueScenario, facts: Facts): void {
  answer(queue, askedCheck(queue), facts);
}

const direct = { directMergeMode: "always" } as const;

describe("direct merge", () => {
  it("merges a PR whose head holds the target and passed its required statuses at once, without a run", () => {
    const queue = aScenario(direct).submit(1);
    expect(queue.commandsOf("check_direct_merge")).toEqual([
      {
        type: "check_direct_merge",
        key: "check-direct-merge:sub-1:1",
        prNumber: 1,
        headSha: "head-1",
        targetBranch: "main",
        targetSha: "main-0",
        requiredStatuses: ["ci"],
      },
    ]);
    expect(queue.commandsOf("create_test_branch")).toEqual([]);

    answerCheck(queue, onTopOfTarget(aCheckRun()));

    expect(queue.commandsOf("merge_pull_request")).toEqual([
      expect.objectContaining({
        prNumber: 1,
        headSha: "head-1",
        method: "squash",
        expectedTargetSha: "main-0",
      }),
    ]);
    queue.mergeSucceeds();
    expect(queue.pr(1)).toMatchObject({
      state: "merged",
      stateReason: "merged",
      stateDetail:
        "Merged into main (main-1). Merged directly: its head already contained main and its required statuses passed on it.",
    });
    expect(queue.runs()).toEqual([]);
  });

  it("with merge_commit, moves the target to the PR head itself", () => {
    const queue = aScenario({ ...direct, mergeMethod: "merge_commit" }).submit(1);
    answerCheck(queue, onTopOfTarget(aCommitStatus()));
    expect(queue.commandsOf("fast_forward_target")).toEqual([
      expect.objectContaining({ sha: "head-1", expectedHeadSha: "main-0", prNumbers: [1] }),
    ]);
  });

  it("tests a PR whose head does not hold the target head, and does not ask again", () => {
    const queue = aScenario(direct).submit(1);
    answerCheck(queue, { kind: "read", containsTarget: false, requiredStatuses: [], reports: [] });

    expect(queue.stateOf(1)).toBe("testing");
    expect(queue.pr(1).directMerge).toMatchObject({
      outcome: "not_eligible",
      why: "its head does not contain the head of main",
    });
    queue.tick(1);
    expect(queue.commandsOf("check_direct_merge")).toEqual([]);
  });

  it.each([
    ["failed", aCheckRun({ conclusion: "failure" }), "required status ci failed on its head"],
    [
      "still running",
      aCheckRun({ status: "in_progress", conclusion: null }),
      "required statuses ci did not pass on its head",
    ],
  ])("tests a PR whose required status %s on its head", (_, report, why) => {
    const queue = aScenario(direct).submit(1);
    answerCheck(queue, onTopOfTarget(report));
    expect(queue.stateOf(1)).toBe("testing");
    expect(queue.pr(1).directMerge?.why).toBe(why);
  });

  it("judges the latest report of each check, as a run does", () => {
    const queue = aScenario(direct).submit(1);
    answerCheck(queue, onTopOfTarget(aCheckRun({ id: 2 }), aCheckRun({ id: 1, conclusion: "failure" })));
    expect(queue.commandsOf("merge_pull_request")).toHaveLength(1);
  });

  it("tests a PR when GitHub refuses to answer the check", () => {
    const queue = aScenario(direct).submit(1);
    answerCheck(queue, { kind: "refused", message: "Not Found" });
    expect(queue.stateOf(1)).toBe("testing");
  });

  it("starts no run while the check is in flight, then tests the queue as usual", () => {
    const queue = aScenario({ ...direct, concurrency: 2 }).submit(1);
    const check = askedCheck(queue);
    queue.submit(2);
    expect(queue.runs()).toEqual([]);

    answer(queue, check, { kind: "read", containsTarget: false, requiredStatuses: [], reports: [] });

    expect(queue.testedSince(0)).toEqual([[1], [2]]);
  });

  it("does not check a PR with another queued or testing ahead of it", () => {
    const queue = aScenario({ ...direct, concurrency: 2 }).submit(1);
    answerCheck(queue, { kind: "read", containsTarget: false, requiredStatuses: [], reports: [] });

    queue.submit(2);

    expect(queue.commandsOf("check_direct_merge")).toEqual([]);
    expect(queue.runOf(2).dependsOn).toEqual([1]);
  });

  it("in parallel mode, checks a PR with PRs ahead only in other lanes", () => {
    const queue = aScenario({ ...direct, mode: "parallel", concurrency: 2 });
    const withTargets = (number: number, targets: string[]) => {
      queue.on(aPr(number));
      queue.on({ type: "impacted_targets_set", prNumber: number, headSha: `head-${number}`, targets });
    };
    withTargets(1, ["api"]);
    answerCheck(queue, { kind: "read", containsTarget: false, requiredStatuses: [], reports: [] });
    expect(queue.stateOf(1)).toBe("testing");

    withTargets(2, ["web"]);
    answerCheck(queue, onTopOfTarget(aCheckRun()));

    expect(queue.commandsOf("merge_pull_request")).toEqual([expect.objectContaining({ prNumber: 2 })]);
  });

  it("in parallel mode, does not check a PR behind one in its lane", () => {
    const queue = aScenario({ ...direct, mode: "parallel", concurrency: 2 });
    queue.on(aPr(1));
    queue.on({ type: "impacted_targets_set", prNumber: 1, headSha: "head-1", targets: ["api"] });
    answerCheck(queue, { kind: "read", containsTarget: false, requiredStatuses: [], reports: [] });

    queue.on(aPr(2));
    queue.on({ type: "impacted_targets_set", prNumber: 2, headSha: "head-2", targets: ["api", "web"] });

    expect(queue.commandsOf("check_direct_merge")).toEqual([]);
    expect(queue.stateOf(2)).toBe("testing");
  });

  it("merges nothing when new commits were pushed to the PR while it was checked", () => {
    const queue = aScenario(direct).submit(1);
    const check = askedCheck(queue);
    queue.on({ type: "cancel_requested", prNumber: 1, reason: "pr_updated" });

    answer(queue, check, onTopOfTarget(aCheckRun()));

    expect(queue.state.merging).toBeNull();
    expect(queue.commands).toEqual([]);
    expect(queue.stateOf(1)).toBe("cancelled");
  });

  it("checks again, on the new head, when the target moved while it was checked", () => {
    const queue = aScenario(direct).submit(1);
    const check = askedCheck(queue);
    queue.on({ type: "target_branch_moved", sha: "outside-1" });
    expect(queue.commandsOf("check_direct_merge")).toEqual([
      expect.objectContaining({ prNumber: 1, targetSha: "outside-1" }),
    ]);

    answer(queue, check, onTopOfTarget(aCheckRun()));

    expect(queue.state.merging).toBeNull();
    expect(queue.commandsOf("merge_pull_request")).toEqual([]);
  });

  it("checks nothing while paused", () => {
    const queue = aScenario(direct, "paused").submit(1);
    expect(queue.commandsOf("check_direct_merge")).toEqual([]);
  });

  it("fails the PR with merge_rejected when GitHub refuses the direct merge", () => {
    const queue = aScenario(direct).submit(1);
    answerCheck(queue, onTopOfTarget(aCheckRun()));
    const [merge] = queue.commandsOf("merge_pull_request");

    queue.on({
      type: "merge_failed",
      mergeId: merge!.mergeId,
      prNumber: 1,
      failure: { kind: "rejected", message: "Review required" },
    });

    expect(queue.pr(1)).toMatchObject({ state: "failed", stateReason: "merge_rejected" });
  });
});
