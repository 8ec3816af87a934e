// Cancelling a queued PR and testing it again: what `/merge cancel`, `/merge restart`, the queue page's buttons and
// the /v1 cancelPullRequest and restartTestsOnPullRequest endpoints all ask.
import { isTerminal, type PullRequestState, type QueueState } from "../queue/index.ts";
import { type CommandAnswer, refusing, stepping } from "./answers.ts";

/** Why a command about a queued PR does nothing: the PR was never submitted, or its submission is over. */
export type NotQueued =
  | { readonly code: "pull_request_not_submitted" }
  | { readonly code: "pull_request_finished"; readonly state: "merged" | "failed" | "cancelled" };

/**
 * The PR's latest submission: the queue's, or, once the queue let go of it, `departed` (the state its history
 * recorded, which only the API reads: the other doors speak of the queue as it is).
 */
function notQueued(state: QueueState, prNumber: number, departed: PullRequestState | undefined) {
  const latest = state.prs[prNumber]?.state ?? departed;
  if (latest === undefined) return { code: "pull_request_not_submitted" } as const;
  if (latest === "merged" || latest === "failed" || latest === "cancelled") {
    return { code: "pull_request_finished", state: latest } as const;
  }
  return null;
}

export interface PullRequestCommand {
  readonly state: QueueState;
  readonly prNumber: number;
  readonly departed?: PullRequestState | undefined;
}

/** Takes the PR out of the queue; `by` says who asked, for the PR's comment and history. */
export function cancelPullRequest(command: PullRequestCommand & { by: string }): CommandAnswer<NotQueued> {
  const refusal = notQueued(command.state, command.prNumber, command.departed);
  if (refusal !== null) return refusing(refusal);
  return stepping({
    type: "cancel_requested",
    prNumber: command.prNumber,
    reason: "cancelled_by_user",
    by: command.by,
  });
}

/** Tests the queued PR again, from the start of its wait. */
export function restartPullRequest(command: PullRequestCommand): CommandAnswer<NotQueued> {
  const refusal = notQueued(command.state, command.prNumber, command.departed);
  if (refusal !== null) return refusing(refusal);
  return stepping({ type: "restart_requested", prNumber: command.prNumber });
}

/** Whether the PR waits or is tested in the queue now (the terminal states are the finished ones). */
export const isQueued = (state: QueueState, prNumber: number): boolean => {
  const entry = state.prs[prNumber];
  return entry !== undefined && !isTerminal(entry.state);
};
