import { releaseStarted } from "./abandonment.ts";
import type { QueueDraft } from "./draft.ts";
import { startedPrs, waitingPrs } from "./ordering.ts";
import { endRun, inProgressRuns, requireRun } from "./run-lifecycle.ts";
import type { QueueState, TestRun } from "./state.ts";
import { patchPr, requirePr, transition } from "./transitions.ts";

export type TestFailureReason = "tests_failed" | "timeout";

type Verdict = { readonly decision: "wait"; readonly detail: string } | { readonly decision: "fail" };

function numbered(prNumbers: readonly number[]): string {
  return prNumbers.map((prNumber) => `#${prNumber}`).join(", ");
}

/**
 * Contract 5.5: a PR whose run failed waits while a PR ahead of it is unresolved (the culprit may be ahead).
 * With optimistic merging it also waits for up to `pendingFailureDepth` runs behind it that contain it,
 * since one of them passing proves the failure flaky. Without optimistic merging a pass behind cannot
 * rescue it, so waiting for the runs behind would only delay the same verdict. A run that never got its
 * test branch has nothing to build on, so nothing behind can vouch for it.
 */
function pendingFailureVerdict(state: QueueState, prNumber: number, failedRun: TestRun): Verdict {
  const unresolvedAhead = failedRun.dependsOn.filter((ahead) => {
    const aheadState = state.prs[ahead]?.state;
    return aheadState === "testing" || aheadState === "pending_failure";
  });
  if (unresolvedAhead.length > 0) {
    return {
      decision: "wait",
      detail: `waiting for ${numbered(unresolvedAhead)} ahead of it before failing`,
    };
  }
  const { canOptimisticallyMerge, pendingFailureDepth } = state.settings;
  if (!canOptimisticallyMerge || pendingFailureDepth === 0 || failedRun.testBranchSha === null) {
    return { decision: "fail" };
  }
  if ((state.prs[prNumber]?.failuresBehind ?? 0) >= pendingFailureDepth) return { decision: "fail" };
  const runBehindInFlight = inProgressRuns(state).some((run) => run.dependsOn.includes(prNumber));
  const runBehindCanStart = waitingPrs(state).some((waiting) => state.prs[waiting]?.state === "pending");
  return runBehindInFlight || runBehindCanStart
    ? { decision: "wait", detail: `waiting for up to ${pendingFailureDepth} PRs behind it that contain it` }
    : { decision: "fail" };
}

/** A run's required statuses failed or timed out (contract 5.3): its PRs fail, or wait (contract 5.5). */
export function failRunTests(
  draft: QueueDraft,
  runId: string,
  reason: TestFailureReason,
  detail: string,
): void {
  endRun(draft, runId, "failed", reason, detail);
  const run = requireRun(draft, runId);
  for (const ahead of run.dependsOn) {
    const pr = requirePr(draft, ahead);
    if (pr.state === "pending_failure") patchPr(draft, ahead, { failuresBehind: pr.failuresBehind + 1 });
  }
  for (const { number } of run.prs) {
    const verdict = pendingFailureVerdict(draft.state, number, run);
    if (verdict.decision === "fail") releaseStarted(draft, number, { to: "failed", reason, detail });
    else {
      transition(draft, number, "pending_failure", reason, `${detail} It is ${verdict.detail}.`, {
        failuresBehind: 0,
      });
    }
  }
}

/** Decides the PRs in pending_failure whose wait is over, front to back (contract 5.5). */
export function resolvePendingFailures(draft: QueueDraft): void {
  for (const prNumber of startedPrs(draft.state)) {
    const pr = requirePr(draft, prNumber);
    if (pr.state !== "pending_failure" || pr.testRunId === null) continue;
    const failedRun = requireRun(draft, pr.testRunId);
    if (pendingFailureVerdict(draft.state, prNumber, failedRun).decision === "fail") {
      const reason: TestFailureReason = pr.stateReason === "timeout" ? "timeout" : "tests_failed";
      releaseStarted(draft, prNumber, { to: "failed", reason, detail: failedRun.endDetail });
    }
  }
}
