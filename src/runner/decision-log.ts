// One structured log line per queue decision (issue "Operability"): a run started, passed, failed or was
// cancelled; a PR was submitted, became ready, started testing, passed, merged, was restarted, failed or was
// cancelled (always with the reason: docs/queue.md#pr-states); a PR merges directly or why it does not (docs/queue.md#direct-merge); the
// queue changed state. Every line names the repo, the
// branch, the queue, and the PR and run it is about, in fields an operator can filter on (`event`).
import type { Logger } from "probot";
import type { PullRequestEntry, PullRequestState, QueueState, TestRun } from "../queue/index.ts";
import type { QueueLocation } from "../ports/queue-location.ts";

const started: ReadonlySet<PullRequestState> = new Set(["testing", "tests_passed", "pending_failure"]);

/** The event name of a PR transition; `previous` is the state it left. */
function prEvent(
  transition: PullRequestEntry["history"][number],
  previous: PullRequestState | undefined,
): string {
  switch (transition.state) {
    case "testing":
      return "pr_testing";
    case "tests_passed":
      return "pr_tests_passed";
    case "pending_failure":
      return "pr_pending_failure";
    case "merged":
      return "pr_merged";
    case "failed":
      return "pr_failed";
    case "cancelled":
      return "pr_cancelled";
    case "pending":
    case "not_ready":
      // docs/queue.md#pr-states: a started PR sent back to wait is tested again (restart, PR ahead failed, target moved…).
      if (previous !== undefined && started.has(previous)) return "pr_restarted";
      return previous === undefined ? "pr_submitted" : "pr_readiness_changed";
  }
}

function runEvent(run: TestRun): string {
  return run.status === "succeeded" ? "run_passed" : `run_${run.status}`;
}

function queueStateOf(state: QueueState): string {
  return state.pendingMode === null ? state.status : "switching_modes";
}

/** Logs what changed from `previous` to `next`, one line per decision, in the order the core took them. */
export function logDecisions(
  log: Logger,
  location: QueueLocation,
  previous: QueueState,
  next: QueueState,
): void {
  const queue = {
    repo: `${location.owner}/${location.name}`,
    branch: location.targetBranch,
    queueId: location.queueId,
  };
  const newRuns: TestRun[] = [];
  for (const run of Object.values(next.runs)) {
    const before = previous.runs[run.id];
    if (before === run) continue;
    const prs = run.prs.map((pr) => pr.number);
    if (before === undefined) {
      newRuns.push(run);
      log.info(
        { ...queue, runId: run.id, prs, dependsOn: run.dependsOn, event: "run_started" },
        `test run ${run.id} started for ${prs.map((n) => `#${n}`).join(", ")}`,
      );
    }
    if (run.status !== "in_progress" && (before === undefined || before.status === "in_progress")) {
      log.info(
        { ...queue, runId: run.id, prs, status: run.status, reason: run.endReason, event: runEvent(run) },
        `test run ${run.id} ${run.status} (${run.endReason}): ${run.endDetail}`,
      );
    }
  }
  for (const pr of Object.values(next.prs)) {
    const before = previous.prs[pr.number];
    if (before === pr) continue;
    logPullRequest(log, queue, before, pr, newRuns);
    logDirectMerge(log, queue, before, pr);
  }
  const [stateBefore, stateAfter] = [queueStateOf(previous), queueStateOf(next)];
  if (stateBefore !== stateAfter) {
    log.info(
      { ...queue, state: stateAfter, previousState: stateBefore, event: "queue_state_changed" },
      `queue ${stateBefore} → ${stateAfter}`,
    );
  }
}

function logPullRequest(
  log: Logger,
  queue: { repo: string; branch: string; queueId: string },
  before: PullRequestEntry | undefined,
  pr: PullRequestEntry,
  newRuns: readonly TestRun[],
): void {
  const sameSubmission = before?.submissionId === pr.submissionId;
  const known = sameSubmission ? (before?.history.length ?? 0) : 0;
  // The run each transition is about: the one it tests in, or the one it was tested in last. Runs started
  // in this step are matched, in order, to its transitions into testing.
  const runsStarted = newRuns.filter((run) => run.prs.some((tested) => tested.number === pr.number));
  let runId = sameSubmission ? (before?.testRunId ?? null) : null;
  pr.history.slice(known).forEach((transition, index) => {
    if (transition.state === "testing") runId = runsStarted.shift()?.id ?? pr.testRunId;
    const event = prEvent(transition, pr.history[known + index - 1]?.state);
    log.info(
      {
        ...queue,
        pr: pr.number,
        submissionId: pr.submissionId,
        runId,
        state: transition.state,
        reason: transition.reason,
        event,
      },
      `#${pr.number} ${event.slice("pr_".length).replace(/_/g, " ")} (${transition.reason}): ${transition.detail}`,
    );
  });
}

/** docs/queue.md#direct-merge: whether a PR checked for a direct merge merges directly, or why it is tested instead. */
function logDirectMerge(
  log: Logger,
  queue: { repo: string; branch: string; queueId: string },
  before: PullRequestEntry | undefined,
  pr: PullRequestEntry,
): void {
  const check = pr.directMerge;
  if (check === undefined || check === before?.directMerge || check.outcome === "checking") return;
  const direct = check.outcome === "merging";
  log.info(
    {
      ...queue,
      pr: pr.number,
      submissionId: pr.submissionId,
      headSha: check.headSha,
      targetSha: check.targetSha,
      direct,
      event: "pr_direct_merge_checked",
    },
    direct ? `#${pr.number} merges directly` : `#${pr.number} is tested: no direct merge, as ${check.why}`,
  );
}
