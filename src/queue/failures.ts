import { releaseStarted } from "./abandonment.ts";
import type { QueueDraft } from "./draft.ts";
import { failedGroups, nextStepOf } from "./failed-groups.ts";
import { waitingPrs } from "./ordering.ts";
import { endRun, inProgressRuns, requireRun } from "./run-lifecycle.ts";
import type { PullRequestEntry, QueueState, TestRun } from "./state.ts";
import { attemptStartedAt } from "./state.ts";
import { transition } from "./transitions.ts";

export type TestFailureReason = "tests_failed" | "timeout";

/** What becomes of a suspect PR (contract 5.5): it waits, is tested once more (confirmFailures), or fails. */
export type Verdict =
  | { readonly decision: "wait"; readonly detail: string }
  | { readonly decision: "confirm" }
  | { readonly decision: "fail" };

function numbered(prNumbers: readonly number[]): string {
  return prNumbers.map((prNumber) => `#${prNumber}`).join(", ");
}

/**
 * Contract 5.5 depth: failed runs behind the PR that contained it, since it last started testing (whether they
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
 * Contract 5.5 for a PR whose own failure is proven as far as bisection goes: it waits while a PR ahead of it
 * is unresolved (the culprit may be ahead). With optimistic merging it also waits for up to
 * `pendingFailureDepth` runs behind it that contain it, since one of them passing proves the failure flaky;
 * without optimistic merging a pass behind cannot rescue it. With `confirmFailures` a failure is believed only
 * once a second run, of it alone on the same base, failed too. A run that never got its test branch has
 * nothing to build on, so nothing behind can vouch for it.
 */
export function suspectVerdict(state: QueueState, prNumber: number, failedRun: TestRun): Verdict {
  const unresolvedAhead = failedRun.dependsOn.filter((ahead) => {
    const aheadState = state.prs[ahead]?.state;
    return aheadState === "testing" || aheadState === "pending_failure";
  });
  if (unresolvedAhead.length > 0) {
    return { decision: "wait", detail: `waiting for ${numbered(unresolvedAhead)} ahead of it before failing` };
  }
  const { canOptimisticallyMerge, pendingFailureDepth, confirmFailures } = state.settings;
  const pr = state.prs[prNumber] as PullRequestEntry;
  if (
    canOptimisticallyMerge &&
    pendingFailureDepth > 0 &&
    failedRun.testBranchSha !== null &&
    failedRunsBehind(state, pr) < pendingFailureDepth
  ) {
    const runBehindInFlight = inProgressRuns(state).some((run) => run.dependsOn.includes(prNumber));
    const runBehindCanStart = waitingPrs(state).some((waiting) => state.prs[waiting]?.state === "pending");
    if (runBehindInFlight || runBehindCanStart) {
      return { decision: "wait", detail: `waiting for up to ${pendingFailureDepth} PRs behind it that contain it` };
    }
  }
  if (confirmFailures && failedRun.purpose !== "confirmation") return { decision: "confirm" };
  return { decision: "fail" };
}

function failureDetail(run: TestRun): string {
  if (run.purpose !== "confirmation") return run.endDetail;
  return `${run.endDetail} It failed again alone in run ${run.id}, after run ${run.failedRunId ?? ""} failed.`;
}

function waitDetail(verdict: Verdict): string {
  switch (verdict.decision) {
    case "wait":
      return `It is ${verdict.detail}.`;
    case "confirm":
      return "It is tested once more, alone on the same base, before it fails.";
    case "fail":
      return "";
  }
}

/**
 * A run's required statuses failed or timed out (contract 5.3). A single PR fails, or waits in
 * pending_failure (contract 5.5); several tested together wait there for bisection (contract 5.6).
 */
export function failRunTests(
  draft: QueueDraft,
  runId: string,
  reason: TestFailureReason,
  detail: string,
): void {
  endRun(draft, runId, "failed", reason, detail);
  const run = requireRun(draft, runId);
  if (run.prs.length > 1) {
    const tested = numbered(run.prs.map((pr) => pr.number));
    const why = `${detail} Run ${run.id} tested ${tested} together; they are bisected to find the PRs that failed it.`;
    for (const { number } of run.prs) transition(draft, number, "pending_failure", reason, why);
    return;
  }
  const prNumber = (run.prs[0] as { number: number }).number;
  const verdict = suspectVerdict(draft.state, prNumber, run);
  if (verdict.decision === "fail") {
    releaseStarted(draft, prNumber, { to: "failed", reason, detail: failureDetail(run) });
  } else transition(draft, prNumber, "pending_failure", reason, `${detail} ${waitDetail(verdict)}`);
}

/** Fails the suspects whose wait is over, front to back (contract 5.5). */
export function resolvePendingFailures(draft: QueueDraft): void {
  for (const { run } of failedGroups(draft.state)) {
    const group = failedGroups(draft.state).find((one) => one.run.id === run.id);
    if (group === undefined || nextStepOf(draft.state, group) !== "suspect") continue;
    const prNumber = group.prNumbers[0] as number;
    if (suspectVerdict(draft.state, prNumber, run).decision !== "fail") continue;
    const reason: TestFailureReason = run.endReason === "timeout" ? "timeout" : "tests_failed";
    releaseStarted(draft, prNumber, { to: "failed", reason, detail: failureDetail(run) });
  }
}
