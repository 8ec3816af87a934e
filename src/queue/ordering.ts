import type { PullRequestEntry, QueueState } from "./state.ts";
import { isStarted, isWaiting } from "./state.ts";

/** docs/queue.md#order-and-priority: priority value ascending, then submission time (then submission order, for equal times). */
export function compareQueueOrder(a: PullRequestEntry, b: PullRequestEntry): number {
  return (
    a.priorityValue - b.priorityValue || a.submittedAt - b.submittedAt || a.submissionSeq - b.submissionSeq
  );
}

function entryOf(prs: QueueState["prs"], prNumber: number): PullRequestEntry {
  const entry = prs[prNumber];
  if (entry === undefined) throw new Error(`PR #${prNumber} is in the line but has no entry`);
  return entry;
}

function inStack(entry: PullRequestEntry): boolean {
  return isStarted(entry.state) && entry.sidelined !== true;
}

/** How many PRs at the front of the line are started (they come first: see `QueueState.line`). */
function startedCount(state: Pick<QueueState, "line" | "prs">): number {
  let count = 0;
  while (count < state.line.length && inStack(entryOf(state.prs, state.line[count] as number))) count++;
  return count;
}

/** The stack of runs: the started PRs that are not sidelined, in the order their runs stack. */
export function startedPrs(state: QueueState): readonly number[] {
  return state.line.slice(0, startedCount(state));
}

export function waitingPrs(state: QueueState): readonly number[] {
  return state.line
    .slice(startedCount(state))
    .filter((prNumber) => isWaiting(entryOf(state.prs, prNumber).state));
}

/** The suspects bisected or confirmed on the side (see `PullRequestEntry.sidelined`). */
export function sidelinedPrs(state: QueueState): readonly number[] {
  return state.line.filter((prNumber) => entryOf(state.prs, prNumber).sidelined === true);
}

/** Every PR whose runs may be in flight: the stack, then the sidelined. */
export function activePrs(state: QueueState): readonly number[] {
  return [...startedPrs(state), ...sidelinedPrs(state)];
}

/**
 * Puts a PR that is not in the line at its place. A started PR goes on top of the stack of started ones
 * (its run is built on them); a waiting PR goes among the waiting ones by priority and submission, behind
 * every started PR, which keeps its place (docs/queue.md#order-and-priority); a sidelined PR goes last. Terminal PRs have no
 * place.
 */
export function placeInLine(line: number[], prs: QueueState["prs"], entry: PullRequestEntry): void {
  const started = startedCount({ line, prs });
  if (entry.sidelined === true) {
    line.push(entry.number);
    return;
  }
  if (isStarted(entry.state)) {
    line.splice(started, 0, entry.number);
    return;
  }
  if (!isWaiting(entry.state)) return;
  let low = started;
  let high = started;
  while (high < line.length && isWaiting(entryOf(prs, line[high] as number).state)) high++;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareQueueOrder(entryOf(prs, line[middle] as number), entry) <= 0) low = middle + 1;
    else high = middle;
  }
  line.splice(low, 0, entry.number);
}

export function removeFromLine(line: number[], prNumber: number): void {
  const index = line.indexOf(prNumber);
  if (index >= 0) line.splice(index, 1);
}

/** 1-based position in queue order, or null when the PR is not queued. */
export function queuePosition(state: QueueState, prNumber: number): number | null {
  const index = state.line.indexOf(prNumber);
  return index < 0 ? null : index + 1;
}
