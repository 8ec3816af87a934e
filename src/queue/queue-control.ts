import type { QueueDraft } from "./draft.ts";
import { waitingPrs } from "./ordering.ts";
import { inProgressRuns, retireRun } from "./run-lifecycle.ts";
import type { QueueMode, QueueSettings } from "./settings.ts";
import { usesProofPlanner } from "./settings.ts";
import type { QueueStatus } from "./state.ts";
import { refreshReadiness, returnToWaiting } from "./transitions.ts";

function sameSetting(a: QueueSettings[keyof QueueSettings], b: QueueSettings[keyof QueueSettings]): boolean {
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((value, index) => value === b[index]);
  }
  return a === b;
}

/**
 * A mode switch that changes who plans the runs (the proof planner plans single mode only) hands the queue
 * over with no run in flight, but with PRs the old planner had started: proven PRs waiting to land with a later
 * run, suspects waiting on the side, passed runs waiting for their turn. The new planner reads none of these as
 * the old one meant them (a FIFO chain would take a proven PR for the front of its line and land a run built
 * on a target gone by), so they go back to waiting and their passed runs' branches go. A merge in flight
 * finishes as planned, and its PRs head the line in the order it lands them: the proof planner lands PRs in the
 * order they were proven, not in the line's, and the runs a FIFO chain starts meanwhile are built on the line.
 */
function handOverStartedPrs(draft: QueueDraft): void {
  const landing = draft.state.merging?.prNumbers ?? [];
  const merging = new Set(landing);
  if (landing.length > 0) {
    const line = draft.mutableLine();
    const rest = line.filter((prNumber) => !merging.has(prNumber));
    line.splice(0, line.length, ...landing.filter((prNumber) => line.includes(prNumber)), ...rest);
  }
  for (const prNumber of draft.state.line) {
    const pr = draft.pr(prNumber);
    if (pr === undefined || merging.has(prNumber)) continue;
    if (pr.state !== "tests_passed" && pr.state !== "pending_failure") continue;
    returnToWaiting(
      draft,
      prNumber,
      "passing_run_withdrawn",
      "The queue's mode changed, and with it how runs are planned: it is tested again.",
      { sidelined: false },
    );
  }
  const landingRun = draft.state.merging?.runId ?? null;
  for (const run of Object.values(draft.state.runs)) {
    if (run.status === "succeeded" && !run.branchDeleted && run.id !== landingRun) retireRun(draft, run.id);
  }
}

/** The mode decides readiness (`requiresImpactedTargets`, docs/queue.md#impacted-targets), so waiting PRs are reconsidered. */
function applyMode(draft: QueueDraft, mode: QueueMode): void {
  const planned = usesProofPlanner(draft.state.settings);
  draft.update({ settings: { ...draft.state.settings, mode }, pendingMode: null });
  if (usesProofPlanner(draft.state.settings) !== planned) handOverStartedPrs(draft);
  for (const prNumber of waitingPrs(draft.state)) refreshReadiness(draft, prNumber);
}

/**
 * updateQueue (docs/api.md#merge-queue-endpoints, docs/queue.md#queue-states). Settings apply to what happens next: runs in flight keep the required
 * statuses they resolved, a lower concurrency cancels nothing. A mode change while runs are in flight
 * waits for them in `switching_modes` (docs/queue.md#switching-modes).
 */
export function onQueueUpdated(
  draft: QueueDraft,
  requested: Partial<QueueSettings>,
  status: QueueStatus | undefined,
): void {
  const state = draft.state;
  const { mode, ...rest } = requested;
  const changed = (Object.keys(rest) as (keyof typeof rest)[]).filter(
    (key) =>
      rest[key] !== undefined && !sameSetting(rest[key] as QueueSettings[typeof key], state.settings[key]),
  );
  if (changed.length > 0) {
    draft.update({
      settings: { ...state.settings, ...Object.fromEntries(changed.map((key) => [key, rest[key]])) },
    });
  }
  if (status !== undefined && status !== state.status) draft.update({ status });
  if (mode === undefined) return;
  if (mode === state.settings.mode) {
    if (state.pendingMode !== null) draft.update({ pendingMode: null });
  } else if (inProgressRuns(state).length > 0) {
    if (state.pendingMode !== mode) draft.update({ pendingMode: mode });
  } else applyMode(draft, mode);
}

/** docs/queue.md#switching-modes: when the last run in flight ends, the new mode applies. */
export function applyPendingMode(draft: QueueDraft): void {
  const mode = draft.state.pendingMode;
  if (mode !== null && inProgressRuns(draft.state).length === 0) applyMode(draft, mode);
}
