// Contract 5.4, 5.7: how what the target branch holds compares with what a run tested.
import { inSameLane } from "./lanes.ts";
import type { PullRequestEntry, QueueState, TestRun } from "./state.ts";

/** What the target holds of a run's tested content, when the Not Rocket Science rule lets it merge. */
export interface TargetOfRun {
  /** The run's content (`dependsOn`, then `prs`) not merged yet, in order. */
  readonly unmerged: readonly number[];
  /** The queue merged PRs outside the run's content since it started: their changes are not in its commit. */
  readonly othersMerged: boolean;
}

/** The PRs the queue merged since it had merged `from`, in merge order; null when one is no longer known. */
function queueMergesSince(state: QueueState, from: number): readonly PullRequestEntry[] | null {
  const merged = Object.values(state.prs)
    .filter((pr) => pr.state === "merged" && pr.mergeIndex !== null && pr.mergeIndex >= from)
    .sort((a, b) => (a.mergeIndex as number) - (b.mergeIndex as number));
  return merged.length === state.target.mergeCount - from ? merged : null;
}

/**
 * The Not Rocket Science rule (contract 5.4, 5.7): the target holds a tested state of the run when it holds
 * the run's basis (no push from outside since) plus the queue's own merges only, the run's content PRs merged
 * so far are exactly its first ones, in order, and every other PR the queue merged since the run started
 * lies in no lane of the run's content (always the case in single mode: every PR is in the one lane, so there
 * may be none). Such a PR changes nothing the run's tests cover, so the target with it is as tested as
 * without it. Null when the target holds no tested state of the run.
 */
export function targetOfRun(state: QueueState, run: TestRun): TargetOfRun | null {
  if (run.basisSha !== state.target.basisSha) return null;
  const mergedSince = queueMergesSince(state, run.mergeCountAtStart);
  if (mergedSince === null) return null;
  const content = [...run.dependsOn, ...run.prs.map((pr) => pr.number)];
  const own = mergedSince.filter((pr) => content.includes(pr.number));
  if (own.some((pr, index) => pr.number !== content[index])) return null;
  const others = mergedSince.filter((pr) => !content.includes(pr.number));
  const lane = content.flatMap((prNumber) => state.prs[prNumber] ?? []);
  if (lane.length !== content.length) return null;
  if (others.some((other) => lane.some((member) => inSameLane(state, member, other)))) return null;
  return { unmerged: content.slice(own.length), othersMerged: others.length > 0 };
}
