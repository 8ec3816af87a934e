// docs/queue.md#batching: which waiting PRs the next run of the main line tests together.
import { inSameLane } from "./lanes.ts";
import { waitingPrs } from "./ordering.ts";
import { skipsTheLine } from "./priority.ts";
import type { PullRequestEntry, QueueState } from "./state.ts";

const MINUTE_MS = 60_000;
/** How far back adaptive batching looks at the PRs the queue decided. */
export const ADAPTIVE_WINDOW_MS = 3 * 60 * MINUTE_MS;
/**
 * The failure rate adaptive batching assumes before it has seen anything, weighted as this many PRs: a new
 * queue starts with moderate batches and follows what it sees once a few dozen PRs were decided.
 */
export const PRIOR_FAILURE_RATE = 0.1;
export const PRIOR_WEIGHT = 10;

/** The PRs the next run would test, and from when it may start (-Infinity: at once). */
export interface FormingBatch {
  readonly prNumbers: readonly number[];
  readonly startsAt: number;
}

function entry(state: QueueState, prNumber: number): PullRequestEntry {
  return state.prs[prNumber] as PullRequestEntry;
}

/**
 * Nothing holds back an urgent PR (docs/queue.md#batching), nor one that was tested before and went back to waiting:
 * it already waited its turn once.
 */
function isHeldByTheWait(pr: PullRequestEntry): boolean {
  return !skipsTheLine(pr.priorityValue) && !pr.history.some((step) => step.state === "testing");
}

/**
 * The share of PRs whose tests failed among those the queue decided over the last hours (up to its latest
 * change, so that the size depends on the state alone), smoothed towards PRIOR_FAILURE_RATE while it has seen
 * few.
 */
export function observedFailureRate(state: QueueState): number {
  const prs = Object.values(state.prs);
  const latest = prs.reduce((at, pr) => Math.max(at, pr.stateChangedAt), -Infinity);
  let failed = 0;
  let decided = 0;
  for (const pr of prs) {
    if (pr.stateChangedAt < latest - ADAPTIVE_WINDOW_MS) continue;
    if (pr.state === "merged") decided++;
    else if (pr.state === "failed" && (pr.stateReason === "tests_failed" || pr.stateReason === "timeout")) {
      decided++;
      failed++;
    }
  }
  return (failed + PRIOR_FAILURE_RATE * PRIOR_WEIGHT) / (decided + PRIOR_WEIGHT);
}

/**
 * The batch size that merges the most PRs per run when each fails independently with probability p: the
 * b that maximises b·(1−p)^b, which is about −1/ln(1−p), at most `limit`.
 */
export function bestBatchSize(failureRate: number, limit: number): number {
  let best = 1;
  for (let size = 2; size <= limit; size++) {
    if (size * (1 - failureRate) ** size > best * (1 - failureRate) ** best) best = size;
  }
  return best;
}

/** The target size of the next batch (`batchingMinSize`, docs/queue.md#batching, or what adaptive batching chose). */
export function batchSize(state: QueueState): number {
  const { adaptiveBatching, batchingMinSize } = state.settings;
  return adaptiveBatching ? bestBatchSize(observedFailureRate(state), batchingMinSize) : batchingMinSize;
}

/**
 * The next run of the main line (docs/queue.md#batching, #batching-and-bisection-in-lanes): of the batches the lanes would start (see laneBatches),
 * the first that may start at once, else the one whose wait ends first. A batch waiting to fill holds back
 * only its own lane.
 */
export function formingBatch(state: QueueState): FormingBatch | null {
  let next: FormingBatch | null = null;
  for (const batch of laneBatches(state)) {
    if (next === null || batch.startsAt < next.startsAt) next = batch;
    if (next.startsAt === -Infinity) break;
  }
  return next;
}

/**
 * The next batch of each lane, in queue order of their first PRs; in single mode, the one batch. A PR behind a
 * batch in its lane (or in the lane of a PR so held back) waits for it: it never starts ahead of it.
 */
function* laneBatches(state: QueueState): Generator<FormingBatch> {
  let ready = waitingPrs(state).filter((prNumber) => entry(state, prNumber).state === "pending");
  while (ready.length > 0) {
    const batch = batchFrom(state, ready);
    yield batch;
    if (state.settings.mode === "single") return;
    const inBatch = new Set(batch.prNumbers);
    const heldBack = batch.prNumbers.map((prNumber) => entry(state, prNumber));
    ready = ready.filter((prNumber) => {
      if (inBatch.has(prNumber)) return false;
      const pr = entry(state, prNumber);
      if (!heldBack.some((other) => inSameLane(state, pr, other))) return true;
      heldBack.push(pr);
      return false;
    });
  }
}

/**
 * The batch `ready` (ready PRs in queue order) starts with: its first PR alone without batching or when it is
 * `noBatch`; else it and the ready PRs behind it in its lane (docs/queue.md#batching-and-bisection-in-lanes; every one in single mode) up to the
 * batch size. A PR passed over, of another lane or `noBatch`, keeps its place ahead of the PRs of its own lane:
 * none of them joins the batch. A full batch starts at once; a smaller one once its oldest PR has waited
 * `batchingMaxWaitTimeMinutes`.
 */
function batchFrom(state: QueueState, ready: readonly number[]): FormingBatch {
  const first = ready[0] as number;
  const { batch, batchingMaxWaitTimeMinutes } = state.settings;
  if (!batch || entry(state, first).noBatch) return { prNumbers: [first], startsAt: -Infinity };
  const size = batchSize(state);
  const held = [entry(state, first)];
  const passedOver: PullRequestEntry[] = [];
  for (const prNumber of ready.slice(1)) {
    if (held.length === size) break;
    const pr = entry(state, prNumber);
    const inLaneOf = (others: readonly PullRequestEntry[]) =>
      others.some((other) => inSameLane(state, pr, other));
    if (!pr.noBatch && inLaneOf(held) && !inLaneOf(passedOver)) held.push(pr);
    else passedOver.push(pr);
  }
  const prNumbers = held.map((pr) => pr.number);
  if (prNumbers.length === size || !held.every(isHeldByTheWait)) return { prNumbers, startsAt: -Infinity };
  const oldest = Math.min(...held.map((pr) => pr.stateChangedAt));
  return { prNumbers, startsAt: oldest + batchingMaxWaitTimeMinutes * MINUTE_MS };
}
