import { expect } from "vitest";
import type { PullRequestEntry, QueueState, TestRun } from "../../src/queue/index.ts";
import { usesProofPlanner } from "../../src/queue/settings.ts";

const STARTED = new Set(["testing", "tests_passed", "pending_failure"]);
const WAITING = new Set(["not_ready", "pending"]);
const FAILURE_REASONS = new Set([
  "merge_conflict",
  "tests_failed",
  "timeout",
  "no_required_statuses",
  "merge_rejected",
  "branch_rule_refused",
]);
const CANCEL_REASONS = new Set([
  "cancelled_by_user",
  "pr_closed",
  "pr_updated",
  "pr_draft",
  "base_changed",
  "merged_outside_queue",
]);

/** The status of the run a started PR stands on. */
const RUN_STATUS_OF_STARTED = {
  testing: "in_progress",
  tests_passed: "succeeded",
  pending_failure: "failed",
} as const;

function entry(state: QueueState, prNumber: number): PullRequestEntry {
  const pr = state.prs[prNumber];
  expect(pr, `PR #${prNumber} in the line has an entry`).toBeDefined();
  return pr as PullRequestEntry;
}

function run(state: QueueState, runId: string | null): TestRun {
  const found = runId === null ? undefined : state.runs[runId];
  expect(found, `run ${runId} exists`).toBeDefined();
  return found as TestRun;
}

/** Every PR is queued, or terminal with the reason it left (no submitted PR is lost: docs/queue.md#pr-states). */
function checkEveryPrAccountedFor(state: QueueState): void {
  expect(new Set(state.line).size, "the line holds each PR once").toBe(state.line.length);
  for (const pr of Object.values(state.prs)) {
    const queued = state.line.includes(pr.number);
    if (pr.state === "merged") {
      expect(pr.stateReason).toBe("merged");
      expect(pr.mergeIndex).not.toBeNull();
    } else if (pr.state === "failed") expect(FAILURE_REASONS).toContain(pr.stateReason);
    else if (pr.state === "cancelled") expect(CANCEL_REASONS).toContain(pr.stateReason);
    expect(queued, `#${pr.number} (${pr.state}) is queued exactly when not terminal`).toBe(
      STARTED.has(pr.state) || WAITING.has(pr.state),
    );
    expect(pr.stateDetail.length).toBeGreaterThan(0);
    const last = pr.history.at(-1);
    expect(last).toEqual({
      state: pr.state,
      at: pr.stateChangedAt,
      reason: pr.stateReason,
      detail: pr.stateDetail,
    });
    pr.history.forEach((step, index) => {
      if (index > 0) expect(step.at).toBeGreaterThanOrEqual(pr.history[index - 1]?.at ?? 0);
    });
  }
}

/**
 * docs/queue.md#order-and-priority: started PRs first, in the order their runs stack; then the waiting ones by priority,
 * then submission; then the sidelined ones (suspects tested on the side), all started.
 */
function checkOrder(state: QueueState): void {
  const sidelined = state.line.findIndex((prNumber) => entry(state, prNumber).sidelined === true);
  const stackAndWaiting = sidelined < 0 ? state.line : state.line.slice(0, sidelined);
  for (const prNumber of sidelined < 0 ? [] : state.line.slice(sidelined)) {
    const pr = entry(state, prNumber);
    expect(pr.sidelined, `#${prNumber} behind a sidelined PR is sidelined`).toBe(true);
    expect(STARTED, `sidelined #${prNumber} is started`).toContain(pr.state);
  }
  const started = stackAndWaiting.findIndex((prNumber) => !STARTED.has(entry(state, prNumber).state));
  const waiting = started < 0 ? [] : stackAndWaiting.slice(started).map((prNumber) => entry(state, prNumber));
  for (const pr of waiting)
    expect(WAITING, `#${pr.number} behind a waiting PR is waiting`).toContain(pr.state);
  const sorted = [...waiting].sort(
    (a, b) =>
      a.priorityValue - b.priorityValue || a.submittedAt - b.submittedAt || a.submissionSeq - b.submissionSeq,
  );
  expect(waiting.map((pr) => pr.number)).toEqual(sorted.map((pr) => pr.number));
}

/** The most runs in flight at once: `concurrency` for the main line, the bisection pool apart (docs/queue.md#what-concurrency-bounds). */
export interface RunLimits {
  readonly mainLine: number;
  readonly bisectionPool: number;
}

function checkRuns(state: QueueState, limits: RunLimits): void {
  const runs = Object.values(state.runs);
  expect(new Set(runs.map((testRun) => testRun.testBranch)).size, "every run has its own test branch").toBe(
    runs.length,
  );
  for (const testRun of runs) expect(testRun.testBranch).toBe(`mq/main/${testRun.id}`);
  const inProgress = runs.filter((testRun) => testRun.status === "in_progress");
  const shas = inProgress.map((testRun) => testRun.testBranchSha).filter((sha) => sha !== null);
  expect(new Set(shas).size, "no two runs in flight test the same commit").toBe(shas.length);
  const pool = inProgress.filter((testRun) => testRun.purpose !== undefined);
  expect(inProgress.length - pool.length, "main-line runs in flight").toBeLessThanOrEqual(limits.mainLine);
  expect(pool.length, "bisection and confirmation runs in flight").toBeLessThanOrEqual(limits.bisectionPool);

  const testing = state.line.map((prNumber) => entry(state, prNumber)).filter((pr) => pr.state === "testing");
  expect(new Set(testing.map((pr) => pr.testRunId))).toEqual(
    new Set(inProgress.map((testRun) => testRun.id)),
  );

  state.line.forEach((prNumber, position) => {
    const pr = entry(state, prNumber);
    if (!STARTED.has(pr.state)) return;
    const own = pr.state === "tests_passed" ? run(state, pr.passingRunId) : run(state, pr.testRunId);
    expect(own.status, `the run #${prNumber} stands on`).toBe(
      RUN_STATUS_OF_STARTED[pr.state as keyof typeof RUN_STATUS_OF_STARTED],
    );
    const content = [...own.dependsOn, ...own.prs.map((tested) => tested.number)];
    expect(content).toContain(prNumber);
    // A suspect is tested on the base of the run it failed in, which the stack may have left. The proof planner
    // builds on proofs (and, speculating, on a run in flight), not on the line: lane-checks.ts checks its bases.
    if (pr.sidelined === true || usesProofPlanner(state.settings)) return;
    // What a live run was built on is still there: merged, or started ahead of it.
    const index = own.dependsOn.indexOf(prNumber);
    for (const ahead of index < 0 ? own.dependsOn : own.dependsOn.slice(0, index)) {
      const aheadPr = entry(state, ahead);
      if (aheadPr.state === "merged") continue;
      expect(STARTED, `#${ahead}, in the base of #${prNumber}'s run, is started`).toContain(aheadPr.state);
      expect(state.line.indexOf(ahead)).toBeLessThan(position);
    }
  });
}

/**
 * A run is built on a commit holding exactly its predicted base: the run it builds on tested the same PRs
 * ahead, apart from those merged since.
 */
function checkPredictedBases(state: QueueState): void {
  for (const testRun of Object.values(state.runs)) {
    if (testRun.status !== "in_progress" || testRun.baseRunId === null) continue;
    const base = run(state, testRun.baseRunId);
    const baseContent = [...base.dependsOn, ...base.prs.map((tested) => tested.number)];
    const mergedSince = baseContent.slice(0, baseContent.length - testRun.dependsOn.length);
    expect(baseContent.slice(mergedSince.length), `run ${testRun.id} is built on its predicted base`).toEqual(
      testRun.dependsOn,
    );
    for (const prNumber of mergedSince) expect(entry(state, prNumber).state).toBe("merged");
  }
}

/** The targets a PR impacts at its current head, as the queue knows them; unknown ones may impact anything. */
function targetsOf(pr: PullRequestEntry): readonly string[] | "ALL" {
  return pr.impactedTargets?.headSha === pr.headSha ? pr.impactedTargets.targets : "ALL";
}

function disjoint(a: PullRequestEntry, b: PullRequestEntry): boolean {
  const [targetsOfA, targetsOfB] = [targetsOf(a), targetsOf(b)];
  if (targetsOfA.length === 0 || targetsOfB.length === 0) return true;
  return (
    targetsOfA !== "ALL" && targetsOfB !== "ALL" && !targetsOfA.some((target) => targetsOfB.includes(target))
  );
}

/**
 * A merge in flight is at the front of its lane (docs/queue.md#merging, #merging-in-lanes): its PRs come in order in the line, and a
 * PR ahead of one of them that is not merging with it is of another lane (only ever in parallel mode).
 */
function checkMerging(state: QueueState): void {
  if (state.merging === null) return;
  const group = state.merging.prNumbers.map((prNumber) => entry(state, prNumber));
  for (const pr of group) expect(pr.state).toBe("tests_passed");
  // The proof planner lands what a run proved, whatever their places in the line: the run's whole content.
  if (usesProofPlanner(state.settings)) {
    const landing = run(state, state.merging.runId);
    const content = [...landing.dependsOn, ...landing.prs.map((tested) => tested.number)];
    expect(content.slice(-state.merging.prNumbers.length), "a landing is what its run tested").toEqual(
      state.merging.prNumbers,
    );
    return;
  }
  const positions = group.map((pr) => state.line.indexOf(pr.number));
  expect(positions, "a merge in flight is in line order").toEqual([...positions].sort((a, b) => a - b));
  group.forEach((member, index) => {
    const ahead = state.line.slice(0, positions[index]).map((prNumber) => entry(state, prNumber));
    for (const other of ahead.filter((pr) => !group.includes(pr))) {
      expect(
        disjoint(member, other),
        `#${other.number} ahead of merging #${member.number} is of another lane`,
      ).toBe(true);
    }
  });
}

export function checkInvariants(state: QueueState, limits: RunLimits): void {
  checkEveryPrAccountedFor(state);
  checkOrder(state);
  checkRuns(state, limits);
  checkPredictedBases(state);
  checkMerging(state);
}
