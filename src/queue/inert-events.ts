// Which events cannot change a queue: a burst of CI webhooks is mostly copies and reports that lost to newer
// ones, and polling GitHub reads again every report a run already holds. Knowing that from the state alone lets
// the shell answer them without a write transaction.
import { compact } from "./compaction.ts";
import type { QueueEvent } from "./events.ts";
import { changesHeadChecks } from "./head-checks.ts";
import { nextDeadline } from "./queries.ts";
import { inProgressRuns } from "./run-lifecycle.ts";
import type { QueueState } from "./state.ts";
import { reportKey, type StatusReport, supersedes } from "./status-reports.ts";

/**
 * True only when stepping `event` at `now`, and compacting after it, gives back `state` itself and no command.
 * `state` must be one a step left (as every saved state is): it is then at rest until its next deadline, so an
 * event that changes nothing by itself starts nothing either. False says nothing: the event may still change
 * nothing, and is stepped.
 */
export function isInert(state: QueueState, event: QueueEvent, now: number): boolean {
  return inertByItself(state, event) && atRest(state, now);
}

/** Whether the event's own handling leaves the state as it is. */
function inertByItself(state: QueueState, event: QueueEvent): boolean {
  switch (event.type) {
    case "status_reported":
      return !changesAnyRun(state, event.sha, event.report);
    case "pr_head_checks_observed":
      return !changesHeadChecks(state, event.prNumber, event.headSha, event.outcome);
    case "tick":
      // Its only work is the testing timeouts, which are among the deadlines `atRest` reads.
      return true;
    default:
      return false;
  }
}

/** Whether stepping anything at `now` starts nothing by itself (no deadline passed) and compacts nothing. */
function atRest(state: QueueState, now: number): boolean {
  const deadline = nextDeadline(state);
  return (deadline === null || now < deadline) && compact(state, now) === state;
}

/** What `onStatusReported` records: the report, on the runs in flight testing `sha` that hold none newer. */
function changesAnyRun(state: QueueState, sha: string, report: StatusReport): boolean {
  const key = reportKey(report);
  return inProgressRuns(state).some((run) => {
    if (run.testBranchSha !== sha) return false;
    const recorded = run.reports[key];
    return recorded === undefined || supersedes(report, recorded);
  });
}
