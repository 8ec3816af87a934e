import { releaseStarted, sideline } from "./abandonment.ts";
import type { QueueDraft } from "./draft.ts";
import { onProofRunFailed } from "./proof-verdicts.ts";
import { usesProofPlanner } from "./settings.ts";
import { failedGroups, nextStepOf } from "./failed-groups.ts";
import { dependenciesAmong } from "./lanes.ts";
import { startedPrs, waitingPrs } from "./ordering.ts";
import { endRun, inProgressRuns, requireRun } from "./run-lifecycle.ts";
import type { PullRequestEntry, QueueState, TestRun } from "./state.ts";
import { attemptStartedAt } from "./state.ts";
import { requirePr, transition } from "./transitions.ts";

export type TestFailureReason = "tests_failed" | "timeout";

/** What becomes of a suspect PR (docs/queue.md#failures): it waits, is tested once more (confirmFailures), or fails. */
export type Verdict =
  | { readonly decision: "wait"; readonly detail: string }
  | { readonly decision: "confirm" }
  | { readonly decision: "fail" };

function numbered(prNumbers: readonly number[]): string {
  return prNumbers.map((prNumber) => `#${prNumber}`).join(", ");
}

/**
 * The depth (`pendingFailureDepth`, docs/queue.md#failures): failed runs behind the PR that contained it, since it last started testing (whether they
 * failed before or after its own run did).
 */
function failedRunsBehind(state: QueueState, pr: PullRequestEntry): number {
  const since = attemptStartedAt(pr);
  return Object.values(state.runs).filter(
    (run) =>
      run.status === "failed" &&
      (run.endReason === "tests_failed" || run.endReason === "timeout") &&
      run.startedAt >= since &&
      run.dependsOn.includes(pr.number),
  ).length;
}

/**
 * docs/queue.md#failures for a PR whose own failure is proven as far as bisection goes: it waits while a PR ahead of it
 * is unresolved (the culprit may be ahead). In the stack, with optimistic merging, it also waits for up to
 * `pendingFailureDepth` runs behind it that contain it, since one of them passing proves the failure flaky;
 * without optimistic merging a pass behind cannot rescue it. With `confirmFailures` a failure is believed only
 * once a second run, of it alone on the same base, failed too. A run that never got its test branch has
 * nothing to build on, so nothing behind can vouch for it.
 */
export function suspectVerdict(state: QueueState, prNumber: number, failedRun: TestRun): Verdict {
  // It was tested after the PRs before it in its run too: while they are still suspects, the culprit may be
  // one of them (those cleared went back to the queue).
  const before = failedRun.prs
    .slice(
      0,
      failedRun.prs.findIndex((pr) => pr.number === prNumber),
    )
    .filter((pr) => state.prs[pr.number]?.sidelined === true);
  const ahead = [...failedRun.dependsOn, ...before.map((pr) => pr.number)];
  const unresolvedAhead = ahead.filter((aheadPr) => {
    const aheadState = state.prs[aheadPr]?.state;
    return aheadState === "testing" || aheadState === "pending_failure";
  });
  if (unresolvedAhead.length > 0) {
    return {
      decision: "wait",
      detail: `waiting for ${numbered(unresolvedAhead)} ahead of it before failing`,
    };
  }
  const { canOptimisticallyMerge, pendingFailureDepth, confirmFailures } = state.settings;
  const pr = state.prs[prNumber] as PullRequestEntry;
  if (
    pr.sidelined !== true &&
    canOptimisticallyMerge &&
    pendingFailureDepth > 0 &&
    failedRun.testBranchSha !== null &&
    failedRunsBehind(state, pr) < pendingFailureDepth
  ) {
    const runBehindInFlight = inProgressRuns(state).some((run) => run.dependsOn.includes(prNumber));
    // A run of a waiting PR contains it when that PR depends on it: any in single mode, its lane's in parallel.
    const runBehindCanStart = waitingPrs(state).some(
      (waiting) =>
        state.prs[waiting]?.state === "pending" &&
        dependenciesAmong(state, [waiting], startedPrs(state)).includes(prNumber),
    );
    if (runBehindInFlight || runBehindCanStart) {
      return {
        decision: "wait",
        detail: `waiting for up to ${pendingFailureDepth} PRs behind it that contain it`,
      };
    }
  }
  if (confirmFailures && failedRun.purpose !== "confirmation") return { decision: "confirm" };
  return { decision: "fail" };
}

/** What proved the PR broken: the run that failed it, and the one it failed before when that was confirmed. */
function failureDetail(run: TestRun): string {
  if (run.prs.length > 1) {
    return `Run ${run.id} failed with it, and bisection cleared the PRs tested before it: ${run.endDetail}`;
  }
  if (run.purpose === undefined) return run.endDetail;
  if (run.purpose === "bisection") return `Bisection run ${run.id} found it: ${run.endDetail}`;
  return `It failed again alone in run ${run.id}, after run ${run.failedRunId ?? ""} failed: ${run.endDetail}`;
}

const CONFIRMING = "It leaves its place and is tested once more, alone on the same base, before it fails.";

function failedDetail(run: TestRun, detail: string): string {
  const tested = numbered(run.prs.map((pr) => pr.number));
  return run.purpose === undefined
    ? `${detail} Run ${run.id} tested ${tested} together; they leave their place to be bisected.`
    : `${detail} Bisection run ${run.id} of ${tested} failed.`;
}

/**
 * A run's required statuses failed or timed out (docs/queue.md#testing). A single PR of the stack fails, waits in
 * pending_failure (docs/queue.md#failures), or is sidelined to be confirmed; several tested together are sidelined to be
 * bisected (docs/queue.md#bisection); the PRs of a run of the bisection pool stay sidelined, in the group it failed.
 */
export function failRunTests(
  draft: QueueDraft,
  runId: string,
  reason: TestFailureReason,
  detail: string,
): void {
  // The proof planner judges its own runs (proof-verdicts.ts).
  if (usesProofPlanner(draft.state.settings)) {
    onProofRunFailed(draft, runId, reason, detail);
    return;
  }
  endRun(draft, runId, "failed", reason, detail);
  const run = requireRun(draft, runId);
  const prNumbers = run.prs.map((pr) => pr.number);
  if (run.purpose !== undefined && run.prs.length > 1) {
    for (const prNumber of prNumbers)
      transition(draft, prNumber, "pending_failure", reason, failedDetail(run, detail));
    return;
  }
  if (run.prs.length > 1) {
    sideline(draft, prNumbers, reason, failedDetail(run, detail));
    return;
  }
  const prNumber = prNumbers[0] as number;
  const verdict = suspectVerdict(draft.state, prNumber, run);
  if (verdict.decision === "fail") failSuspect(draft, prNumber, run);
  else if (verdict.decision === "confirm" && run.purpose === undefined) {
    sideline(draft, [prNumber], reason, `${detail} ${CONFIRMING}`);
  } else {
    const waiting = verdict.decision === "wait" ? `It is ${verdict.detail}.` : CONFIRMING;
    transition(draft, prNumber, "pending_failure", reason, `${detail} ${waiting}`);
  }
}

/**
 * Decides the suspects whose wait is over (docs/queue.md#failures): in the stack front to back, then the sidelined
 * ones. A suspect to confirm in the stack is sidelined; bisection.ts starts its confirmation run.
 */
export function resolvePendingFailures(draft: QueueDraft): void {
  for (const prNumber of startedPrs(draft.state)) {
    const pr = requirePr(draft, prNumber);
    if (pr.state !== "pending_failure" || pr.testRunId === null) continue;
    const run = requireRun(draft, pr.testRunId);
    const verdict = suspectVerdict(draft.state, prNumber, run);
    if (verdict.decision === "fail") failSuspect(draft, prNumber, run);
    else if (verdict.decision === "confirm") {
      sideline(draft, [prNumber], testFailureReasonOf(run), `${run.endDetail} ${CONFIRMING}`);
    }
  }
  for (const { run } of failedGroups(draft.state)) {
    const group = failedGroups(draft.state).find((one) => one.run.id === run.id);
    if (group === undefined || nextStepOf(draft.state, group) !== "suspect") continue;
    const prNumber = group.prNumbers[0] as number;
    if (suspectVerdict(draft.state, prNumber, run).decision === "fail") failSuspect(draft, prNumber, run);
  }
}

function testFailureReasonOf(run: TestRun): TestFailureReason {
  return run.endReason === "timeout" ? "timeout" : "tests_failed";
}

function failSuspect(draft: QueueDraft, prNumber: number, run: TestRun): void {
  releaseStarted(draft, prNumber, {
    to: "failed",
    reason: testFailureReasonOf(run),
    detail: failureDetail(run),
  });
}
