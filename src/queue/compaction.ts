// A queue lives for months: PRs that left it and runs that ended leave its state after a while, so a step
// stays as cheap on day 300 as on day 1. Their records stay in the shell's projections.
import type { QueueState, TestRun } from "./state.ts";
import { isTerminal } from "./state.ts";

/** How long a finished PR or run stays in the state: long enough for late webhooks about it. */
export const FINISHED_RETENTION_MS = 24 * 60 * 60 * 1000;

/** The state without PRs finished and runs ended before `now - retentionMs` that nothing refers to. */
export function compact(state: QueueState, now: number, retentionMs = FINISHED_RETENTION_MS): QueueState {
  const cutoff = now - retentionMs;
  const merging = new Set(state.merging?.prNumbers ?? []);
  const prs = Object.values(state.prs);
  const droppedPrs = prs.filter(
    (pr) => isTerminal(pr.state) && pr.stateChangedAt < cutoff && !merging.has(pr.number),
  );
  const keptPrs = prs.filter((pr) => !droppedPrs.includes(pr));
  const referenced = new Set<string>();
  for (const pr of keptPrs) {
    if (pr.testRunId !== null) referenced.add(pr.testRunId);
    if (pr.passingRunId !== null) referenced.add(pr.passingRunId);
  }
  if (state.merging?.runId != null) referenced.add(state.merging.runId);
  const finished = (run: TestRun) =>
    run.status !== "in_progress" && run.endedAt !== null && run.endedAt < cutoff && run.branchDeleted;
  const droppedRuns = Object.values(state.runs).filter((run) => finished(run) && !referenced.has(run.id));
  if (droppedPrs.length === 0 && droppedRuns.length === 0) return state;

  const dropRuns = new Set(droppedRuns.map((run) => run.id));
  return {
    ...state,
    prs: Object.fromEntries(keptPrs.map((pr) => [pr.number, pr])),
    runs: Object.fromEntries(Object.entries(state.runs).filter(([id]) => !dropRuns.has(id))),
  };
}
