import { queueStatusContext } from "./commands.ts";
import { knownFlakyFailures } from "./flake-evidence.ts";
import { currentTargets, dependenciesAmong, targetsIntersect } from "./lanes.ts";
import { queuePosition, startedPrs } from "./ordering.ts";
import type { PullRequestEntry, PullRequestState, QueueState, StateReason } from "./state.ts";
import { isStarted, isTerminal } from "./state.ts";

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

/** What a user can do about a PR that left the queue (docs/queue.md#what-the-pr-shows). */
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
    case "branch_rule_refused":
      return `Make the PR meet \`${state.targetBranch}\`'s rule GitHub named (or have the rule changed), then ${again}.`;
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

/** A comment names at most this many PRs of a lane, and this many targets each PR shares. */
const LANE_PRS_SHOWN = 5;
const SHARED_TARGETS_SHOWN = 2;

function listed(items: readonly string[], shown: number): string {
  const more = items.length - shown;
  return items.slice(0, shown).join(", ") + (more > 0 ? ` and ${more} more` : "");
}

/**
 * docs/queue.md#what-people-see: the PRs ahead a queued PR depends on in parallel mode, and why (shared targets, "ALL", or a
 * PR between them), or that it has a lane of its own. A started PR's are its run's; a waiting PR's are those
 * it would be tested on now. Null outside parallel mode, and before the PR has targets for its head.
 */
function laneLine(state: QueueState, pr: PullRequestEntry): string | null {
  if (state.settings.mode !== "parallel" || isTerminal(pr.state)) return null;
  if (pr.impactedTargets?.headSha !== pr.headSha) return null;
  const run = pr.testRunId === null ? undefined : state.runs[pr.testRunId];
  const dependencies =
    isStarted(pr.state) && run !== undefined
      ? run.dependsOn
      : dependenciesAmong(state, [pr.number], startedPrs(state));
  if (dependencies.length === 0) {
    return "**Lane:** its own. No PR ahead shares its impacted targets, so it waits for none of them.";
  }
  const own = currentTargets(pr);
  if (own === "ALL") {
    const prs = dependencies.map((prNumber) => `#${prNumber}`);
    return `**Lane:** waits for ${listed(prs, LANE_PRS_SHOWN)}: it impacts ALL targets.`;
  }
  const lane = [...dependencies, pr.number];
  const reasons = dependencies.map((prNumber, index) => {
    const why = dependencyReason(state, prNumber, own, lane.slice(index + 1));
    return why === null ? `#${prNumber}` : `#${prNumber} (${why})`;
  });
  return `**Lane:** waits for ${listed(reasons, LANE_PRS_SHOWN)}.`;
}

/** Why a PR depends on `prNumber`: the targets they share, its "ALL", or the PR behind it that shares with it. */
function dependencyReason(
  state: QueueState,
  prNumber: number,
  own: readonly string[],
  behind: readonly number[],
): string | null {
  const dependency = state.prs[prNumber];
  if (dependency === undefined) return null;
  const theirs = currentTargets(dependency);
  if (theirs === "ALL") return "impacts ALL";
  const shared = sharedTargets(own, theirs);
  if (shared.length > 0) return `shares ${listed(shared, SHARED_TARGETS_SHOWN)}`;
  const through = behind.find((number) => {
    const entry = state.prs[number];
    return entry !== undefined && targetsIntersect(currentTargets(entry), theirs);
  });
  return through === undefined ? null : `through #${through}`;
}

function sharedTargets(own: readonly string[], theirs: readonly string[]): string[] {
  const set = new Set(theirs);
  return own.filter((target) => set.has(target)).map((target) => `\`${target}\``);
}

/** A comment names at most this many known-flaky tests per run. */
const FLAKY_TESTS_SHOWN = 5;

/**
 * The runs of this submission that failed only on known-flaky tests, and those tests (docs/flake-evidence.md): the
 * PR was tested again each time rather than failed, and its author may want to fix or quarantine them.
 */
function flakyFailureLines(state: QueueState, pr: PullRequestEntry): string[] {
  return Object.values(state.runs)
    .filter(
      (run) =>
        run.endReason === "flaky_failure" &&
        run.startedAt >= pr.submittedAt &&
        run.prs.some((tested) => tested.number === pr.number),
    )
    .sort((a, b) => a.startedAt - b.startedAt)
    .map((run) => {
      const tests = knownFlakyFailures(run).map((name) => `\`${name}\``);
      return `**Known-flaky failures:** run \`${run.id}\` failed only on ${listed(tests, FLAKY_TESTS_SHOWN)}; it was tested again.`;
    });
}

/** The body of the one comment kept up to date per submission (docs/queue.md#what-the-pr-shows). */
export function renderPrComment(state: QueueState, pr: PullRequestEntry): string {
  const position = queuePosition(state, pr.number);
  const lines = [
    commentMarker(pr.submissionId),
    `**Switchyard merge queue** for \`${state.targetBranch}\`: **${STATE_HEADLINES[pr.state]}**` +
      (position === null ? "" : ` (position ${position} of ${state.line.length})`),
    "",
    pr.stateDetail,
  ];
  const lane = laneLine(state, pr);
  if (lane !== null) lines.push("", lane);
  for (const line of flakyFailureLines(state, pr)) lines.push("", line);
  const run = pr.testRunId === null ? undefined : state.runs[pr.testRunId];
  if (run !== undefined) lines.push("", `Latest test run: \`${run.id}\` on branch \`${run.testBranch}\`.`);
  const whatToDo = pr.state === "failed" || pr.state === "cancelled" ? advice(state, pr.stateReason) : null;
  if (whatToDo !== null) lines.push("", `**What to do:** ${whatToDo}`);
  // Routine progress is not edited into the comment (see notifications.ts): say where it shows.
  if (!isTerminal(pr.state) && state.settings.statusCheckEnabled) {
    lines.push(
      "",
      `Its progress shows on its \`${queueStatusContext(state.targetBranch)}\` check; this comment is edited when something goes wrong or it leaves the queue.`,
    );
  }
  return lines.join("\n");
}
