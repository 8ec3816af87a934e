import type { QueueDraft } from "./draft.ts";
import { waitingPrs } from "./ordering.ts";
import { inProgressRuns } from "./run-lifecycle.ts";
import type { QueueMode, QueueSettings } from "./settings.ts";
import type { QueueStatus } from "./state.ts";
import { refreshReadiness } from "./transitions.ts";

function sameSetting(a: QueueSettings[keyof QueueSettings], b: QueueSettings[keyof QueueSettings]): boolean {
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((value, index) => value === b[index]);
  }
  return a === b;
}

/** The mode decides readiness (`requiresImpactedTargets`, docs/queue.md#impacted-targets), so waiting PRs are reconsidered. */
function applyMode(draft: QueueDraft, mode: QueueMode): void {
  draft.update({ settings: { ...draft.state.settings, mode }, pendingMode: null });
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
