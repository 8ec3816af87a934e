// One structured log line per queue decision (contract 6, issue "Operability"): every PR transition and
// every run that started or ended, with repo, branch, PR and run ids.
import type { Logger } from "probot";
import type { QueueState } from "../queue/index.ts";
import type { QueueLocation } from "../store/queue-locations.ts";

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
  for (const run of Object.values(next.runs)) {
    const before = previous.runs[run.id];
    if (before === run) continue;
    if (before === undefined) {
      log.info(
        { ...queue, runId: run.id, prs: run.prs.map((pr) => pr.number), event: "run_started" },
        "test run started",
      );
    } else if (before.status === "in_progress" && run.status !== "in_progress") {
      log.info(
        { ...queue, runId: run.id, status: run.status, reason: run.endReason, event: "run_ended" },
        `test run ${run.status}: ${run.endDetail}`,
      );
    }
  }
  for (const pr of Object.values(next.prs)) {
    const before = previous.prs[pr.number];
    if (before === pr) continue;
    const known = before?.submissionId === pr.submissionId ? before.history.length : 0;
    for (const transition of pr.history.slice(known)) {
      log.info(
        {
          ...queue,
          pr: pr.number,
          submissionId: pr.submissionId,
          runId: pr.testRunId,
          state: transition.state,
          reason: transition.reason,
          event: "pr_transition",
        },
        `#${pr.number} ${transition.state} (${transition.reason}): ${transition.detail}`,
      );
    }
  }
}
