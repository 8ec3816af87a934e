// The queue's codes in words, for people: why a PR is where it is (its stateReason) and the queue's state.
import type { QueueState, StateReason } from "../../queue/index.ts";

const reasonWords: Record<StateReason, string> = {
  submitted: "Submitted to the queue",
  ready: "Ready: waiting for its turn to be tested",
  awaiting_readiness: "Waiting to be ready (mergeable, its own checks passed, approved)",
  test_started: "Its test run started",
  tests_passed: "Its tests passed; it merges once the PRs ahead of it have",
  vouched_by_run_behind: "A run behind it, which contains it, passed",
  merged: "Merged",
  cancelled_by_user: "Cancelled on request",
  pr_closed: "The pull request was closed",
  pr_updated: "New commits were pushed to the pull request",
  pr_draft: "The pull request was turned into a draft",
  base_changed: "The base branch of the pull request changed",
  merged_outside_queue: "Merged outside the queue",
  merge_conflict: "It conflicts with the target branch or a PR ahead of it",
  tests_failed: "Its tests failed",
  timeout: "Its tests took longer than the queue's testing timeout",
  no_required_statuses: "No required status checks are configured, so nothing could prove it",
  merge_rejected: "GitHub refused the merge",
  branch_rule_refused: "GitHub refused the merge for one of the branch's rules",
  restart_requested: "Restart requested: it will be tested again",
  target_moved: "The target branch moved: it will be tested again on the new head",
  urgent_pr_ahead: "An urgent PR went ahead of it: it will be tested again behind it",
  pr_ahead_failed: "A PR ahead of it failed: it will be tested again without it",
  pr_ahead_cancelled: "A PR ahead of it left the queue: it will be tested again without it",
  pr_ahead_requeued: "A PR ahead of it is tested again, so it is too",
  passing_run_withdrawn: "The run that passed it no longer counts: it will be tested again",
  cleared_by_retest: "Passed when tested again on the side: back in the queue",
  flaky_failure: "Its run failed only on known-flaky tests: it is tested again",
};

/** The reason in words; a code this page does not know yet is shown as it is. */
export function reasonInWords(reason: string): string {
  return Object.hasOwn(reasonWords, reason) ? reasonWords[reason as StateReason] : reason;
}

/** A duration as a person reads it: 45 s, 12 min, 3 h 5 min. */
export function durationInWords(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
}

/** The value at fraction `q` of sorted `values` (nearest rank), or null when there are none. */
export function percentile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? null;
}

/** The queue's state as its record names it (running, paused, draining, switching_modes). */
export function queueStateOf(state: QueueState): string {
  return state.pendingMode === null ? state.status : "switching_modes";
}

/** What the page says after each change. */
export const changeNotices: Record<string, string> = {
  pause: "Paused: no new run starts until the queue is resumed.",
  resume: "Resumed: the queue is running.",
  drain: "Draining: the PRs queued go on; no new PR is taken.",
  cancel: "The PR was taken out of the queue.",
  restart: "The PR will be tested again.",
  urgent: "The PR is urgent now: it goes ahead of the others.",
};
