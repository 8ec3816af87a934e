import { testBudgetFreesAt } from "./restart-budget.ts";
import { releaseStarted, removeFromQueue } from "./abandonment.ts";
import type { TestBranchMerge } from "./commands.ts";
import { createTestBranch, openTestPullRequest, testBranchName } from "./commands.ts";
import type { QueueDraft } from "./draft.ts";
import { failRunTests } from "./failures.ts";
import { deferFailureToEvidence, endExpiredEvidenceWaits, isAwaitingEvidence } from "./flake-evidence.ts";
import { onProofRunPassed } from "./proof-verdicts.ts";
import { compareQueueOrder, startedPrs } from "./ordering.ts";
import { skipsTheLine } from "./priority.ts";
import { endRun, inProgressRuns, relevantRun, requireRun, retireRun } from "./run-lifecycle.ts";
import { formingBatch } from "./batching.ts";
import { dependenciesAmong } from "./lanes.ts";
import { ownRequiredStatuses, usesProofPlanner } from "./settings.ts";
import type { QueueState, RequiredStatusesSource, RunPurpose, TestRun } from "./state.ts";
import { attemptCommitDate, isStarted } from "./state.ts";
import type { StatusReport } from "./status-reports.ts";
import { judgeRun, reportKey, supersedes } from "./status-reports.ts";
import { runContent, targetOfRun } from "./tested-content.ts";
import { requirePr, returnToWaiting, transition } from "./transitions.ts";

const MINUTE_MS = 60_000;

const NO_REQUIRED_STATUSES =
  "No required statuses: set merge.required_statuses in .github/switchyard.yml or protect the branch.";

/**
 * docs/queue.md#queue-states, #switching-modes: new runs start only in running or draining, and not while the mode is switching; nor
 * before the target branch exists, as there is nothing to test on.
 */
export function canStartRuns(draft: QueueDraft | QueueState): boolean {
  const { status, pendingMode, target } = "state" in draft ? draft.state : draft;
  return (status === "running" || status === "draining") && pendingMode === null && !target.awaitingBranch;
}

/**
 * docs/queue.md#order-and-priority: an urgent PR skips the line. When it is ready, the first started PR ahead of it in its lane
 * that it outranks goes back to waiting, and with it every run built on that PR; they restart behind it.
 * A merge in flight cannot be undone, so its PRs stay ahead.
 */
function preemptForUrgent(draft: QueueDraft): void {
  const state = draft.state;
  const urgent = state.line.filter((prNumber) => {
    const pr = requirePr(draft, prNumber);
    // A sidelined PR has no place in the stack to claim until it is back in the queue.
    return (
      skipsTheLine(pr.priorityValue) &&
      pr.sidelined !== true &&
      (pr.state === "pending" || isStarted(pr.state))
    );
  });
  for (const urgentPr of urgent) {
    const pr = requirePr(draft, urgentPr);
    if (pr.state !== "pending" && !isStarted(pr.state)) continue;
    const started = startedPrs(draft.state);
    const limit = isStarted(pr.state) ? started.indexOf(urgentPr) : started.length;
    // docs/queue.md#lanes: it only skips the PRs it would be tested on top of, those of its lane.
    const outranked = dependenciesAmong(draft.state, [urgentPr], started.slice(0, limit)).find(
      (prNumber) =>
        !draft.state.merging?.prNumbers.includes(prNumber) &&
        compareQueueOrder(requirePr(draft, prNumber), pr) > 0,
    );
    if (outranked !== undefined) {
      releaseStarted(draft, outranked, {
        to: "waiting",
        reason: "urgent_pr_ahead",
        detail: `Urgent #${urgentPr} skips the line; it will be tested again behind it.`,
      });
    }
  }
}

/**
 * How a started PR is merged into test branches: dated when its attempt started, so that merging it on the
 * same commit again, in a run behind it or in a bisection run, makes the same commit (see TestBranchMerge).
 */
function testedMerge(draft: QueueDraft, prNumber: number): TestBranchMerge {
  const pr = requirePr(draft, prNumber);
  return { number: pr.number, headSha: pr.headSha, title: pr.title, commitDate: attemptCommitDate(pr) };
}

/**
 * How a run of the bisection pool merges its own PRs: it tests again what a failed run tested, so its commit
 * must be a new one, on which CI runs anew (results are kept per commit, and the failed run's commit carries
 * its failure). The merge message names the run, which makes the commit its own whatever the clock says.
 */
function retestMerge(draft: QueueDraft, prNumber: number, runId: string): TestBranchMerge {
  const merge = testedMerge(draft, prNumber);
  return { ...merge, title: `${merge.title} (retested in run ${runId})`, commitDate: draft.now };
}

/**
 * A run of the bisection pool (docs/queue.md#bisection): what it follows up, what it is tested on (the PRs ahead in the
 * failed run, not the stack), and why, for the PRs' history.
 */
export interface FollowUp {
  readonly purpose: RunPurpose;
  readonly failedRunId: string;
  readonly dependsOn: readonly number[];
  readonly why: string;
}

/**
 * A main-line run the proof planner chose (see proof-planner.ts): the proven PRs it is built on, and whether its
 * own PRs are merged as new commits (they were tested before, and CI keeps results per commit).
 */
export interface PlannedRun {
  readonly dependsOn: readonly number[];
  readonly freshCommits: boolean;
  /** A speculative run: built on this run's tested commit, whose content is `dependsOn`. */
  readonly onRun?: TestRun;
}

/** The started PRs ahead of `prNumber` when it is started, else every started PR: what a run of it may build on. */
function startedAhead(state: QueueState, prNumber: number): readonly number[] {
  const started = startedPrs(state);
  const index = started.indexOf(prNumber);
  return index < 0 ? started : started.slice(0, index);
}

/**
 * The run whose tested commit a new run on top of `dependsOn` can be built on: that of the last of them, when
 * the target holds what it was built on plus its first PRs only, and the rest of it is exactly `dependsOn`.
 * A merge of another lane since it started is not in its commit, so it does not qualify: a run built on it
 * would test its PRs without that merge, which the target holds.
 */
function baseRunFor(state: QueueState, dependsOn: readonly number[]): TestRun | undefined {
  const last = dependsOn.at(-1);
  const pr = last === undefined ? undefined : state.prs[last];
  const run = pr === undefined ? undefined : relevantRun(state, pr);
  if (run?.testBranchSha == null) return undefined;
  const target = targetOfRun(state, run);
  const sameContent =
    target !== null &&
    target.prefixOfTestedCommit &&
    target.unmerged.length === dependsOn.length &&
    target.unmerged.every((prNumber, index) => prNumber === dependsOn[index]);
  return sameContent ? run : undefined;
}

/**
 * docs/queue.md#testing, #lanes: a run tests its PRs on top of the started PRs ahead of them that they depend on (in
 * single mode, every one). It is built on the tested commit of the run of the last of them when that commit
 * holds exactly those (see baseRunFor), else from the target head through every one of them: either way its
 * branch is built at once, without waiting for the branches of the runs ahead.
 */
export function startRun(
  draft: QueueDraft,
  prNumbers: readonly number[],
  followUp?: FollowUp,
  planned?: PlannedRun,
): void {
  const state = draft.state;
  const id = `${state.queueId}-${state.nextRunSeq}`;
  const dependsOn =
    followUp?.dependsOn ??
    planned?.dependsOn ??
    dependenciesAmong(state, prNumbers, startedAhead(state, prNumbers[0] as number));
  // A planned run is built from the target itself: a passed run holding its proven PRs may hold other commits
  // of them than those a landing put on the target since.
  const baseRun =
    followUp !== undefined ? undefined : planned === undefined ? baseRunFor(state, dependsOn) : planned.onRun;
  const requiredStatuses = ownRequiredStatuses(state.settings);
  const run: TestRun = {
    id,
    prs: prNumbers.map((prNumber) => {
      const pr = requirePr(draft, prNumber);
      return { number: pr.number, headSha: pr.headSha, title: pr.title };
    }),
    dependsOn,
    basisSha: state.target.basisSha,
    mergeCountAtStart: state.target.mergeCount,
    baseRunId: baseRun?.id ?? null,
    baseSha: baseRun?.testBranchSha ?? state.target.headSha,
    testBranch: testBranchName(state, id),
    testBranchSha: null,
    status: "in_progress",
    startedAt: draft.now,
    endedAt: null,
    endReason: null,
    endDetail: "",
    requiredStatuses,
    requiredStatusesSource: requiredStatuses === null ? null : "merge_instance",
    reports: {},
    testPullRequest: state.settings.createPrsForTestingBranches,
    branchDeleted: false,
    ...(followUp === undefined ? {} : { purpose: followUp.purpose, failedRunId: followUp.failedRunId }),
  };
  draft.putRun(run);
  draft.update({ nextRunSeq: state.nextRunSeq + 1 });
  const onTopOf =
    dependsOn.length > 0 ? dependsOn.map((prNumber) => `#${prNumber}`).join(", ") : state.targetBranch;
  const together =
    prNumbers.length > 1 ? ` with ${prNumbers.map((prNumber) => `#${prNumber}`).join(", ")}` : "";
  const why = followUp === undefined ? "Testing" : `${followUp.why}: testing`;
  for (const prNumber of prNumbers) {
    transition(
      draft,
      prNumber,
      "testing",
      "test_started",
      `${why} in run ${id}${together} on top of ${onTopOf}.`,
      {
        testRunId: id,
      },
    );
  }
  const ahead = baseRun === undefined ? dependsOn.map((prNumber) => testedMerge(draft, prNumber)) : [];
  const own = prNumbers.map((prNumber) =>
    followUp === undefined && planned?.freshCommits !== true
      ? testedMerge(draft, prNumber)
      : retestMerge(draft, prNumber, id),
  );
  draft.emit(createTestBranch(state, run, [...ahead, ...own]));
}

/**
 * docs/queue.md#what-concurrency-bounds, #batching: the main line tests the next ready PRs (one, or a batch) on top of the ones ahead, while
 * fewer than `concurrency` of its runs are in flight. The bisection pool counts apart (see bisection.ts).
 */
export function startRuns(draft: QueueDraft): void {
  if (!canStartRuns(draft)) return;
  preemptForUrgent(draft);
  let slots = mainLineSlots(draft.state);
  while (slots > 0) {
    const batch = formingBatch(draft.state);
    if (batch === null || batch.startsAt > draft.now) return;
    if (testBudgetFreesAt(draft.state, batch.prNumbers) > draft.now) return;
    startRun(draft, batch.prNumbers);
    slots--;
  }
}

/**
 * When the batch held back for `batchingMaxWaitTimeMinutes` may start, while the main line has room for it
 * (docs/queue.md#batching); null when none is held.
 */
export function batchWaitDeadline(state: QueueState): number | null {
  // The proof planner never holds a group back to fill it.
  if (!canStartRuns(state) || mainLineSlots(state) <= 0 || usesProofPlanner(state.settings)) return null;
  const batch = formingBatch(state);
  if (batch === null) return null;
  // Or held back by a PR of it that spent its test budget (see restart-budget.ts).
  const startsAt = Math.max(batch.startsAt, testBudgetFreesAt(state, batch.prNumbers));
  return Number.isFinite(startsAt) ? startsAt : null;
}

/** Free slots of the main line: `concurrency` less its runs in flight. */
export function mainLineSlots(state: QueueState): number {
  return state.settings.concurrency - inProgressRuns(state).filter((run) => run.purpose === undefined).length;
}

function evaluateRun(draft: QueueDraft, runId: string): void {
  const run = requireRun(draft, runId);
  if (run.status !== "in_progress" || run.requiredStatuses === null || run.testBranchSha === null) return;
  const verdict = judgeRun(run.requiredStatuses, run.reports);
  if (verdict.kind === "succeeded") {
    if (usesProofPlanner(draft.state.settings)) onProofRunPassed(draft, run);
    else succeedRun(draft, run);
  } else if (verdict.kind === "failed") {
    const detail = `Required status ${verdict.name} failed: ${verdict.url}`;
    // Test health may show the failure flaky (flake-evidence.ts): tested again, or held for an upload.
    if (!deferFailureToEvidence(draft, run, detail)) failRunTests(draft, runId, "tests_failed", detail);
  }
}

/**
 * docs/queue.md#testing: the run's PRs passed. docs/queue.md#failures: with optimistic merging the run also vouches for every
 * PR ahead in its base still testing or in pending failure; their own runs are no longer needed.
 */
function succeedRun(draft: QueueDraft, run: TestRun): void {
  endRun(draft, run.id, "succeeded", "succeeded", `All required statuses passed on ${run.testBranchSha}.`);
  if (run.purpose !== undefined) {
    clearSuspects(draft, run);
    // Nothing merges from a run on the side.
    retireRun(draft, run.id);
    return;
  }
  for (const { number } of run.prs) {
    transition(draft, number, "tests_passed", "tests_passed", `Run ${run.id} passed; waiting to merge.`, {
      passingRunId: run.id,
    });
  }
  if (!draft.state.settings.canOptimisticallyMerge) return;
  const behind = run.prs.map((pr) => `#${pr.number}`).join(", ");
  const superseded = new Set<string>();
  for (const ahead of run.dependsOn) {
    const pr = requirePr(draft, ahead);
    if (pr.state !== "testing" && pr.state !== "pending_failure") continue;
    const detail = `Run ${run.id} of ${behind} behind it passed with it; it merges with it (optimistic merge).`;
    if (pr.state === "testing" && pr.testRunId !== null) {
      endRun(draft, pr.testRunId, "cancelled", "superseded", detail);
      superseded.add(pr.testRunId);
    }
    transition(draft, ahead, "tests_passed", "vouched_by_run_behind", detail, {
      passingRunId: run.id,
    });
  }
  releaseLeftInSupersededRuns(draft, run, superseded);
}

/**
 * In parallel mode a run that vouches for the PRs ahead of it in its lane may supersede a batch that also holds
 * PRs of another lane, which it does not hold: they are left without a run, so they go back to be tested again
 * (with whatever was built on them).
 */
function releaseLeftInSupersededRuns(draft: QueueDraft, run: TestRun, superseded: ReadonlySet<string>): void {
  for (const prNumber of startedPrs(draft.state)) {
    const pr = requirePr(draft, prNumber);
    if (pr.state !== "testing" || pr.testRunId === null || !superseded.has(pr.testRunId)) continue;
    releaseStarted(draft, prNumber, {
      to: "waiting",
      reason: "pr_ahead_requeued",
      detail: `Run ${pr.testRunId}, which tested it, was cancelled: run ${run.id} of another lane passed with the PRs of it that are in its lane, and they merge with it. It is tested again.`,
    });
  }
}

/**
 * A run of the bisection pool passed: its PRs, and the sidelined PRs it was tested on, did not fail it. They
 * go back to waiting, untouched by batching's wait, to be tested in the stack again: what passed on the side
 * was tested on a base the stack has left behind.
 */
function clearSuspects(draft: QueueDraft, run: TestRun): void {
  const cleared = runContent(run).filter((prNumber) => draft.pr(prNumber)?.sidelined === true);
  for (const prNumber of cleared) {
    const pr = requirePr(draft, prNumber);
    // A part ahead still testing on the side: this pass, which holds all of it, answers for it.
    const partRun =
      pr.state === "testing" && pr.testRunId !== run.id ? draft.run(pr.testRunId ?? "") : undefined;
    if (partRun?.prs.every((tested) => cleared.includes(tested.number))) {
      endRun(draft, partRun.id, "cancelled", "superseded", `Run ${run.id}, which holds it, passed.`);
    } else if (partRun !== undefined) continue;
    returnToWaiting(
      draft,
      prNumber,
      "cleared_by_retest",
      `Run ${run.id} passed with it on the side, after run ${run.failedRunId ?? ""} failed; it goes back to the queue.`,
    );
  }
}

export function onTestBranchCreated(draft: QueueDraft, runId: string, sha: string): void {
  const run = draft.run(runId);
  if (run === undefined || run.testBranchSha !== null) return;
  draft.putRun({ ...run, testBranchSha: sha });
  if (run.status !== "in_progress") return;
  if (run.testPullRequest) draft.emit(openTestPullRequest(draft.state, run));
  evaluateRun(draft, runId);
}

/**
 * docs/queue.md#testing: a conflict while building the test branch fails the PR that did not merge; the rest is rebuilt
 * without it. That may be a PR ahead, merged on the way to the run's own: it does not merge on top of the PRs
 * ahead of it either, so it fails, and the run goes back to waiting with it. It counts even when the run
 * already timed out waiting for its branch: the PR is still waiting on it.
 */
export function onTestBranchConflict(draft: QueueDraft, runId: string, prNumber: number): void {
  const run = draft.run(runId);
  const pr = draft.pr(prNumber);
  if (run === undefined || pr === undefined || run.testBranchSha !== null) return;
  const detail = `#${prNumber} does not merge cleanly on top of ${draft.state.targetBranch} and the PRs ahead of it.`;
  const ownPr = pr.testRunId === runId && (pr.state === "testing" || pr.state === "pending_failure");
  if (ownPr) endRun(draft, runId, "failed", "merge_conflict", detail);
  const ahead = run.status === "in_progress" && run.dependsOn.includes(prNumber);
  if (ownPr || (ahead && isStarted(pr.state) && !draft.state.merging?.prNumbers.includes(prNumber))) {
    // Whatever was built on it, or tested with it, is rebuilt without it.
    removeFromQueue(draft, prNumber, { to: "failed", reason: "merge_conflict", detail });
  } else if (ahead) {
    // It merged (or is merging) meanwhile, so its conflict is with a base the target no longer holds.
    for (const tested of run.prs) {
      releaseStarted(draft, tested.number, {
        to: "waiting",
        reason: "target_moved",
        detail: `#${prNumber} ahead of it merged meanwhile; it will be tested again on ${draft.state.targetBranch}.`,
      });
    }
  }
}

/**
 * docs/queue.md#required-statuses: required statuses, resolved for a run (with its test branch, see create_test_branch); none at
 * all fails it at once, and nothing was built.
 */
export function onRequiredStatusesResolved(
  draft: QueueDraft,
  runId: string,
  statuses: readonly string[],
  source: RequiredStatusesSource,
): void {
  const run = draft.run(runId);
  if (run?.status !== "in_progress" || run.requiredStatuses !== null) return;
  if (statuses.length === 0) {
    // The executor builds no branch once it finds none, but an earlier attempt of the same command, whose answer
    // was lost, may have built it while the target still had some: the run deletes its branch as any run does.
    endRun(draft, runId, "failed", "no_required_statuses", NO_REQUIRED_STATUSES);
    for (const pr of run.prs) {
      removeFromQueue(draft, pr.number, {
        to: "failed",
        reason: "no_required_statuses",
        detail: NO_REQUIRED_STATUSES,
      });
    }
    return;
  }
  draft.putRun({ ...run, requiredStatuses: statuses, requiredStatusesSource: source });
  // The news that they are testing waited for this (see notifications.ts).
  for (const { number } of run.prs) draft.transitioned.add(number);
  evaluateRun(draft, runId);
}

/** Reports only count for the commit a run tests (`testBranchSha`, docs/queue.md#testing). */
export function onStatusReported(draft: QueueDraft, sha: string, report: StatusReport): void {
  for (const run of inProgressRuns(draft.state)) {
    if (run.testBranchSha !== sha) continue;
    const key = reportKey(report);
    const recorded = run.reports[key];
    if (recorded !== undefined && !supersedes(report, recorded)) continue;
    draft.putRun({ ...run, reports: { ...run.reports, [key]: report } });
    evaluateRun(draft, run.id);
  }
}

/** `testingTimeoutMinutes` (docs/queue.md#testing): when a run still missing a required status fails. */
export function testingDeadline(state: QueueState, run: TestRun): number {
  return run.startedAt + state.settings.testingTimeoutMinutes * MINUTE_MS;
}

export function onTick(draft: QueueDraft): void {
  endExpiredEvidenceWaits(draft);
  for (const run of inProgressRuns(draft.state)) {
    if (draft.now < testingDeadline(draft.state, run) || isAwaitingEvidence(run)) continue;
    const current = requireRun(draft, run.id);
    if (current.status !== "in_progress") continue;
    failRunTests(
      draft,
      run.id,
      "timeout",
      timeoutDetail(current, draft.state.settings.testingTimeoutMinutes),
    );
  }
}

function timeoutDetail(run: TestRun, minutes: number): string {
  if (run.testBranchSha === null) return `The test branch was not created within ${minutes} minutes.`;
  if (run.requiredStatuses === null)
    return `The required statuses were not resolved within ${minutes} minutes.`;
  const verdict = judgeRun(run.requiredStatuses, run.reports);
  const missing = verdict.kind === "pending" ? verdict.waitingFor.join(", ") : "";
  return `Required statuses ${missing} did not finish within ${minutes} minutes.`;
}
