import { queuePosition } from "./ordering.ts";
import type { PullRequestEntry, PullRequestState, QueueState, StateReason } from "./state.ts";

const STATE_HEADLINES: Readonly<Record<PullRequestState, string>> = {
  not_ready: "Waiting to be ready",
  pending: "Queued",
  testing: "Testing",
  tests_passed: "Tests passed",
  pending_failure: "Tests failed, decision pending",
  merged: "Merged",
  failed: "Failed",
  cancelled: "Cancelled",
};

/** The marker that names the submission's comment, so the executor can find it to edit it. */
export function commentMarker(submissionId: string): string {
  return `<!-- switchyard:submission:${submissionId} -->`;
}

function submitAgain(state: QueueState): string {
  return state.settings.commandsEnabled ? "submit it again with `/merge`" : "submit it to the queue again";
}

/** What a user can do about a PR that left the queue (contract 5.10). */
function advice(state: QueueState, reason: StateReason): string | null {
  const again = submitAgain(state);
  switch (reason) {
    case "merge_conflict":
      return `Merge or rebase \`${state.targetBranch}\` into the branch, resolve the conflicts, push, and ${again}.`;
    case "tests_failed":
      return `Look at the failed status above, fix it, push, and ${again}. If the failure looks flaky, ${again} as it is.`;
    case "timeout":
      return `Check that CI runs on the \`${state.testBranchPrefix}${state.targetBranch}/…\` test branches and reports the required statuses, then ${again}.`;
    case "no_required_statuses":
      return `Set \`merge.required_statuses\` in \`.github/switchyard.yml\` or protect \`${state.targetBranch}\` with required status checks, then ${again}.`;
    case "merge_rejected":
      return `Fix what GitHub reported, then ${again}.`;
    case "cancelled_by_user":
    case "pr_closed":
    case "pr_updated":
    case "pr_draft":
    case "base_changed":
      return `When it is ready, ${again}.`;
    default:
      return null;
  }
}

/** The body of the one comment kept up to date per submission (contract 5.10). */
export function renderPrComment(state: QueueState, pr: PullRequestEntry): string {
  const position = queuePosition(state, pr.number);
  const lines = [
    commentMarker(pr.submissionId),
    `**Switchyard merge queue** for \`${state.targetBranch}\`: **${STATE_HEADLINES[pr.state]}**` +
      (position === null ? "" : ` (position ${position} of ${state.line.length})`),
    "",
    pr.stateDetail,
  ];
  const run = pr.testRunId === null ? undefined : state.runs[pr.testRunId];
  if (run !== undefined) lines.push("", `Latest test run: \`${run.id}\` on branch \`${run.testBranch}\`.`);
  const whatToDo = pr.state === "failed" || pr.state === "cancelled" ? advice(state, pr.stateReason) : null;
  if (whatToDo !== null) lines.push("", `**What to do:** ${whatToDo}`);
  return lines.join("\n");
}
