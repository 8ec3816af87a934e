import { queueStatusContext } from "./commands.ts";
import type { QueueDraft } from "./draft.ts";
import { queuePosition } from "./ordering.ts";
import { renderPrComment } from "./pr-comment.ts";
import type { PullRequestEntry, QueueState } from "./state.ts";

/** GitHub limits a commit status description to 140 characters. */
const DESCRIPTION_LIMIT = 140;

type CommitState = "pending" | "success" | "failure" | "error";

/** docs/queue.md#what-the-pr-shows: pending while queued or testing, success when merged, failure when failed, error when cancelled. */
function commitStatusOf(
  state: QueueState,
  pr: PullRequestEntry,
): { state: CommitState; description: string } {
  switch (pr.state) {
    case "merged":
      return { state: "success", description: "Merged by the merge queue" };
    case "failed":
      return { state: "failure", description: `Failed (${pr.stateReason}): ${pr.stateDetail}` };
    case "cancelled":
      return { state: "error", description: `Cancelled (${pr.stateReason}): ${pr.stateDetail}` };
    case "testing":
      return { state: "pending", description: `Testing in run ${pr.testRunId}` };
    case "tests_passed":
      return { state: "pending", description: "Tests passed; waiting to merge" };
    case "pending_failure":
      return { state: "pending", description: "Tests failed; waiting before deciding" };
    case "pending":
    case "not_ready":
      return {
        state: "pending",
        description: `Queued at position ${queuePosition(state, pr.number)}: ${pr.stateDetail}`,
      };
  }
}

function truncate(text: string): string {
  return text.length <= DESCRIPTION_LIMIT ? text : `${text.slice(0, DESCRIPTION_LIMIT - 1)}…`;
}

/**
 * A PR is not shown testing before its run knows its required statuses: with none, the run fails at once
 * (docs/queue.md#testing), and the PR would show a test that never was. The news waits for them.
 */
function awaitsRequiredStatuses(state: QueueState, pr: PullRequestEntry): boolean {
  const run = pr.testRunId === null ? undefined : state.runs[pr.testRunId];
  return pr.state === "testing" && run?.requiredStatuses === null;
}

/**
 * Routine progress (docs/queue.md#what-the-pr-shows): its first run starting, or its tests passing. With the commit
 * status on, the status alone shows it: a comment edit for it would say again what the status says, and count
 * against GitHub's limits on writes. Setbacks (a failed batch bisected, a run rebuilt, a failure pending) and
 * the end are news for the comment too.
 */
function isRoutineProgress(state: QueueState, pr: PullRequestEntry): boolean {
  if (!state.settings.statusCheckEnabled) return false;
  if (pr.state === "tests_passed") return true;
  return pr.state === "testing" && pr.history.filter((step) => step.state === "testing").length === 1;
}

/** A course with no news: queued (or waiting to be ready), tested once, passed, merged. */
const ROUTINE_COURSE = /^((not_ready|pending) )*(testing )?(tests_passed )?(merged )?$/;

/**
 * docs/queue.md#what-the-pr-shows: with the commit status on, a PR whose course so far holds no news gets no
 * comment in single mode: the status shows each step of it (queued, testing, merged), and a comment would notify
 * everyone watching the PR to say the same, and count against GitHub's limits on writes. The first setback or
 * failure posts it; from then on it is kept up to date, the end included. In parallel mode the comment also says
 * which PRs ahead the PR waits for (its lane), which no status shows.
 */
function isRoutineCourse(state: QueueState, pr: PullRequestEntry): boolean {
  if (!state.settings.statusCheckEnabled || state.settings.mode !== "single") return false;
  return ROUTINE_COURSE.test(pr.history.map((step) => `${step.state} `).join(""));
}

/**
 * One commit status and one comment update per PR whose state changed in this step, for its final state.
 * Keys carry the length of the PR's history, so each update is its own outbox entry.
 */
export function notifyTransitions(draft: QueueDraft): void {
  const state = draft.state;
  for (const prNumber of draft.transitioned) {
    const pr = state.prs[prNumber];
    if (pr === undefined || awaitsRequiredStatuses(state, pr)) continue;
    const version = `${pr.submissionId}:${pr.history.length}`;
    if (state.settings.statusCheckEnabled) {
      const status = commitStatusOf(state, pr);
      draft.emit({
        type: "set_commit_status",
        key: `commit-status:${version}`,
        prNumber,
        sha: pr.headSha,
        context: queueStatusContext(state.targetBranch),
        state: status.state,
        description: truncate(status.description),
      });
    }
    const routineCourse = isRoutineCourse(state, pr);
    // The end of a routine course is edited into a comment posted before (in parallel mode), never posted.
    if (state.settings.commentsEnabled && !(routineCourse && pr.state !== "merged")) {
      draft.emit({
        type: "upsert_pr_comment",
        key: `pr-comment:${version}`,
        prNumber,
        submissionId: pr.submissionId,
        body: renderPrComment(state, pr),
        progress: isRoutineProgress(state, pr),
        editOnly: routineCourse,
      });
    }
  }
}
