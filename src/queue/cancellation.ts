import { releaseStarted, removeFromQueue } from "./abandonment.ts";
import type { QueueDraft } from "./draft.ts";
import type { CancelReason } from "./state.ts";
import { isStarted, isTerminal } from "./state.ts";
import { patchPr } from "./transitions.ts";

const CANCEL_DETAILS: Readonly<Record<CancelReason, string>> = {
  cancelled_by_user: "Cancelled on request.",
  pr_closed: "The pull request was closed.",
  pr_updated: "New commits were pushed to the pull request.",
  pr_draft: "The pull request was turned into a draft.",
  base_changed: "The base branch of the pull request changed.",
  merged_outside_queue: "The pull request was merged outside the queue.",
};

export function cancelDetail(reason: CancelReason): string {
  return CANCEL_DETAILS[reason];
}

/**
 * docs/queue.md#pr-states: any non-terminal PR can be cancelled. A merge in flight cannot be called back, so a
 * cancellation then waits for its result: it applies if the merge fails. A PR reported merged while its
 * own merge is in flight is that merge, not a merge outside the queue.
 */
export function onCancelRequested(
  draft: QueueDraft,
  prNumber: number,
  reason: CancelReason,
  by?: string,
): void {
  const pr = draft.pr(prNumber);
  if (pr === undefined || isTerminal(pr.state)) return;
  if (draft.state.merging?.prNumbers.includes(prNumber)) {
    if (reason !== "merged_outside_queue" && pr.cancelRequest === null) {
      patchPr(draft, prNumber, { cancelRequest: reason });
    }
    return;
  }
  const detail = by === undefined ? cancelDetail(reason) : `Cancelled on request by ${by}.`;
  removeFromQueue(draft, prNumber, { to: "cancelled", reason, detail });
}

/** restartTestsOnPullRequest / `/merge restart` (docs/queue.md#pr-states): a started PR is tested again. */
export function onRestartRequested(draft: QueueDraft, prNumber: number): void {
  const pr = draft.pr(prNumber);
  if (pr === undefined || !isStarted(pr.state) || draft.state.merging?.prNumbers.includes(prNumber)) return;
  releaseStarted(draft, prNumber, {
    to: "waiting",
    reason: "restart_requested",
    detail: "Restart requested; it will be tested again.",
  });
}
