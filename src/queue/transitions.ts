import { countDecision, isDecision } from "./decisions.ts";
import type { QueueDraft } from "./draft.ts";
import { placeInLine, removeFromLine } from "./ordering.ts";
import { isReady, readinessDetail, readinessOf } from "./readiness.ts";
import type { PullRequestEntry, PullRequestState, StateReason } from "./state.ts";
import { isStarted, isTerminal, isWaiting } from "./state.ts";

/** Facts of a PR that change without being a state of their own. */
export type EntryPatch = Partial<
  Pick<
    PullRequestEntry,
    | "testRunId"
    | "passingRunId"
    | "mergeIndex"
    | "cancelRequest"
    | "priorityValue"
    | "usedDefaultPriority"
    | "noBatch"
    | "mergeability"
    | "mergeabilityRecheck"
    | "impactedTargets"
    | "sidelined"
    | "directMerge"
    | "evidence"
  >
>;

function placeClass(entry: PullRequestEntry): "started" | "sidelined" | "waiting" | "terminal" {
  if (entry.sidelined === true) return "sidelined";
  if (isStarted(entry.state)) return "started";
  return isTerminal(entry.state) ? "terminal" : "waiting";
}

export function requirePr(draft: QueueDraft, prNumber: number): PullRequestEntry {
  const entry = draft.pr(prNumber);
  if (entry === undefined) throw new Error(`no PR #${prNumber} in queue ${draft.state.queueId}`);
  return entry;
}

/**
 * Moves a PR to a new state, recording when and why (docs/queue.md#pr-states), and keeps the line in order. This
 * module is the only one that changes the line: PRs enter, move and leave it through here.
 */
export function transition(
  draft: QueueDraft,
  prNumber: number,
  to: PullRequestState,
  reason: StateReason,
  detail: string,
  patch: EntryPatch = {},
): void {
  const before = requirePr(draft, prNumber);
  // Only a started PR can be sidelined: leaving the runs ends it.
  const sidelined = isStarted(to) && (patch.sidelined ?? before.sidelined) === true;
  const { sidelined: _sidelined, ...rest } = { ...before, ...patch };
  const after: PullRequestEntry = {
    ...rest,
    ...(sidelined ? { sidelined } : {}),
    state: to,
    stateReason: reason,
    stateDetail: detail,
    stateChangedAt: draft.now,
    history: [...before.history, { state: to, at: draft.now, reason, detail }],
  };
  draft.transitioned.add(prNumber);
  replacePr(draft, after, placeClass(before) !== placeClass(after));
  if (!isTerminal(before.state) && isDecision(to, reason)) {
    draft.update({ decisions: countDecision(draft.state.decisions, to === "failed") });
  }
}

/** Changes facts of a PR without a transition; a waiting PR whose priority changed moves to its new place. */
export function patchPr(draft: QueueDraft, prNumber: number, patch: EntryPatch): void {
  const before = requirePr(draft, prNumber);
  const after: PullRequestEntry = { ...before, ...patch };
  replacePr(draft, after, isWaiting(before.state) && before.priorityValue !== after.priorityValue);
}

/** Stores a PR's new entry, moving it to the place it now has in the line when its place may have changed. */
function replacePr(draft: QueueDraft, after: PullRequestEntry, moves: boolean): void {
  if (!moves) {
    draft.putPr(after);
    return;
  }
  const line = draft.mutableLine();
  removeFromLine(line, after.number);
  draft.putPr(after);
  placeInLine(line, draft.state.prs, after);
}

/** A new submission takes its place in the line (submitted → not_ready | pending: docs/queue.md#pr-states). */
export function enterQueue(draft: QueueDraft, entry: PullRequestEntry): void {
  draft.putPr(entry);
  placeInLine(draft.mutableLine(), draft.state.prs, entry);
  draft.transitioned.add(entry.number);
}

/** Back to waiting (testing → pending: docs/queue.md#pr-states): pending when still ready, else not_ready. */
export function returnToWaiting(
  draft: QueueDraft,
  prNumber: number,
  reason: StateReason,
  detail: string,
  patch: EntryPatch = {},
): void {
  const entry = requirePr(draft, prNumber);
  const to = isReady(readinessOf(draft.state, entry)) ? "pending" : "not_ready";
  transition(draft, prNumber, to, reason, detail, { passingRunId: null, ...patch });
}

/** A waiting PR follows its readiness (not_ready ↔ pending: docs/queue.md#pr-states). */
export function refreshReadiness(draft: QueueDraft, prNumber: number): void {
  const entry = requirePr(draft, prNumber);
  if (entry.state !== "not_ready" && entry.state !== "pending") return;
  const readiness = readinessOf(draft.state, entry);
  const to = isReady(readiness) ? "pending" : "not_ready";
  if (to === entry.state) return;
  transition(
    draft,
    prNumber,
    to,
    to === "pending" ? "ready" : "awaiting_readiness",
    readinessDetail(draft.state, readiness),
  );
}
