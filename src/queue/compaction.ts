// A queue lives for months: PRs that left it and runs that ended leave its state after a while, so a step
// stays as cheap on day 300 as on day 1. Their records stay in the shell's projections, which the pages and
// endpoints that show history read. Every step loads and saves the state whole: on a busy day (30 PRs an hour)
// a day of finished PRs and runs weighs about 600 KiB, four hours under 100 KiB.
import { ADAPTIVE_WINDOW_MS } from "./batching.ts";
import type { PullRequestEntry, QueueState, TestRun } from "./state.ts";
import { isTerminal } from "./state.ts";

const HOUR_MS = 60 * 60 * 1000;

/**
 * How long a finished PR or run stays in the state: long enough for late webhooks about it (GitHub gives up
 * redelivering after minutes) and for the results of the commands it left behind.
 */
export const FINISHED_RETENTION_MS = 4 * HOUR_MS;

/** Before when a finished PR may leave the state. */
function prCutoff(state: QueueState, prs: readonly PullRequestEntry[], cutoff: number): number {
  if (!state.settings.adaptiveBatching) return cutoff;
  const latest = prs.reduce((at, pr) => Math.max(at, pr.stateChangedAt), -Infinity);
  // Adaptive batching judges the failure rate by the PRs decided in its window up to the queue's latest change
  // (`observedFailureRate`): while it is on, those stay however long the queue was idle since.
  return Math.min(cutoff, latest - ADAPTIVE_WINDOW_MS);
}

/** The runs the PRs' latest and passing runs are, and the run of the merge in flight. */
function runsReferencedBy(state: QueueState, prs: readonly PullRequestEntry[]): Set<string> {
  const referenced = new Set<string>();
  for (const pr of prs) {
    if (pr.testRunId !== null) referenced.add(pr.testRunId);
    if (pr.passingRunId !== null) referenced.add(pr.passingRunId);
  }
  if (state.merging?.runId != null) referenced.add(state.merging.runId);
  return referenced;
}

/**
 * The first merge index the Not Rocket Science check of a live run may read (see tested-content.ts): what the
 * queue merged since the oldest run still in flight or waiting to merge started. Those merged PRs stay, however
 * old: a run waiting that long is rare, and without them it would be rebuilt.
 */
function firstMergeStillRead(state: QueueState): number {
  const live = runsReferencedBy(
    state,
    Object.values(state.prs).filter((pr) => !isTerminal(pr.state)),
  );
  let first = Infinity;
  for (const run of Object.values(state.runs)) {
    if (run.status === "in_progress" || live.has(run.id)) first = Math.min(first, run.mergeCountAtStart);
  }
  return first;
}

/** The state without PRs finished and runs ended before `now - retentionMs` that nothing refers to. */
export function compact(state: QueueState, now: number, retentionMs = FINISHED_RETENTION_MS): QueueState {
  const cutoff = now - retentionMs;
  const merging = new Set(state.merging?.prNumbers ?? []);
  const prs = Object.values(state.prs);
  const prsCutoff = prCutoff(state, prs, cutoff);
  const mergesStillRead = firstMergeStillRead(state);
  const droppedPrs = prs.filter(
    (pr) =>
      isTerminal(pr.state) &&
      pr.stateChangedAt < prsCutoff &&
      !merging.has(pr.number) &&
      (pr.mergeIndex ?? -1) < mergesStillRead,
  );
  const keptPrs = prs.filter((pr) => !droppedPrs.includes(pr));
  const referenced = runsReferencedBy(state, keptPrs);
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
