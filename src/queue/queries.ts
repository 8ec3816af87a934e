// What the shell asks of a queue's state: what to poll and when to tick, and whether a request may proceed.
import { evidenceDeadline } from "./flake-evidence.ts";
import { proofBudgetDeadline } from "./proof-planner.ts";
import { inProgressRuns } from "./run-lifecycle.ts";
import { batchWaitDeadline, testingDeadline } from "./runs.ts";
import type { MergeabilityRecheck, QueueState } from "./state.ts";

/** deleteQueue is refused while this holds (`queue_not_empty`, docs/api.md#merge-queue-endpoints). */
export function hasNonTerminalPullRequests(state: QueueState): boolean {
  return state.line.length > 0;
}

/** submitPullRequest of a PR not yet queued is refused while draining (`queue_draining`, docs/queue.md#queue-states). */
export function acceptsNewSubmissions(state: QueueState): boolean {
  return state.status !== "draining";
}

/**
 * When the shell should tick next (epoch ms): the earliest testing timeout in flight, end of a failed run's wait
 * for test results, mergeability recheck, end of a batch's wait or of the proof planner's wait for a PR's test
 * budget, or null.
 */
export function nextDeadline(state: QueueState): number | null {
  const deadlines = [
    // A run whose failure only waits for test results is past its testing timeout's reach (onTick).
    ...inProgressRuns(state).map((run) => evidenceDeadline(run) ?? testingDeadline(state, run)),
    ...mergeabilityRechecks(state).map(({ at }) => at),
    batchWaitDeadline(state) ?? Infinity,
    proofBudgetDeadline(state) ?? Infinity,
  ].filter(Number.isFinite);
  return deadlines.length === 0 ? null : Math.min(...deadlines);
}

function mergeabilityRechecks(state: QueueState): (MergeabilityRecheck & { prNumber: number })[] {
  return pullRequestsToRecheck(state).flatMap((prNumber) => {
    const recheck = state.prs[prNumber]?.mergeabilityRecheck ?? null;
    return recheck === null ? [] : [{ ...recheck, prNumber }];
  });
}

/** Not-ready PRs whose mergeability GitHub was computing, due to be read again at `now`. */
export function mergeabilityRechecksDue(state: QueueState, now: number): number[] {
  return mergeabilityRechecks(state)
    .filter(({ at }) => at <= now)
    .map(({ prNumber }) => prNumber);
}

/**
 * Queued PRs that are not ready (docs/queue.md#readiness). GitHub sends no webhook when a PR becomes mergeable (its
 * mergeability computed, its own checks passed, a review given), so the shell reads them again.
 */
export function pullRequestsToRecheck(state: QueueState): number[] {
  return state.line.filter((prNumber) => state.prs[prNumber]?.state === "not_ready");
}
