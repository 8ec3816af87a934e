import { closeTestPullRequest, deleteTestBranch } from "./commands.ts";
import type { QueueDraft } from "./draft.ts";
import { activePrs } from "./ordering.ts";
import type { PullRequestEntry, QueueState, RunEndReason, TestRun } from "./state.ts";

export function requireRun(draft: QueueDraft, runId: string): TestRun {
  const run = draft.run(runId);
  if (run === undefined) throw new Error(`no run ${runId} in queue ${draft.state.queueId}`);
  return run;
}

/** The run a started PR stands on: the one testing it, that failed it, or that vouches for it. */
function relevantRunId(pr: PullRequestEntry): string | null {
  if (pr.state === "tests_passed") return pr.passingRunId;
  return pr.state === "testing" || pr.state === "pending_failure" ? pr.testRunId : null;
}

export function relevantRun(state: QueueState, pr: PullRequestEntry): TestRun | undefined {
  const runId = relevantRunId(pr);
  return runId === null ? undefined : state.runs[runId];
}

/** Runs in flight. Every one belongs to a testing PR: a PR leaving testing ends or hands over its run. */
export function inProgressRuns(state: QueueState): TestRun[] {
  const runs = new Map<string, TestRun>();
  for (const prNumber of activePrs(state)) {
    const runId = state.prs[prNumber]?.testRunId;
    const run = runId == null ? undefined : state.runs[runId];
    if (run?.status === "in_progress") runs.set(run.id, run);
  }
  return [...runs.values()];
}

/** Deletes a run's test branch (and closes its draft PR) once nothing needs it any more (docs/queue.md#testing). */
export function retireRun(draft: QueueDraft, runId: string): void {
  const run = requireRun(draft, runId);
  if (run.branchDeleted) return;
  if (run.testPullRequest && run.testBranchSha !== null) draft.emit(closeTestPullRequest(run));
  draft.emit(deleteTestBranch(run));
  draft.putRun({ ...run, branchDeleted: true });
}

/**
 * Ends a run in flight. A failed or cancelled run's branch goes at once; a succeeded run keeps its branch
 * while its tested commit may still become the target head.
 */
export function endRun(
  draft: QueueDraft,
  runId: string,
  status: "succeeded" | "failed" | "cancelled",
  reason: RunEndReason,
  detail: string,
): void {
  const run = requireRun(draft, runId);
  if (run.status !== "in_progress") return;
  draft.putRun({ ...run, status, endedAt: draft.now, endReason: reason, endDetail: detail });
  if (status !== "succeeded") retireRun(draft, runId);
}
