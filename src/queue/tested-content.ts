// docs/queue.md#merging, #merging-in-lanes: how what the target branch holds compares with what a run tested.
import { inSameLane } from "./lanes.ts";
import type { PullRequestEntry, QueueState, TestRun } from "./state.ts";

/** What the target holds of a run's tested content, when the Not Rocket Science rule lets it merge. */
export interface TargetOfRun {
  /** The run's content (`dependsOn`, then `prs`) not merged yet, in order. */
  readonly unmerged: readonly number[];
  /**
   * The target holds exactly the run's basis and the first PRs of its content, in order: nothing another lane
   * merged, and no content PR merged ahead of an independent one before it. Only then is the tested commit a
   * descendant of the target head.
   */
  readonly prefixOfTestedCommit: boolean;
}

/** What a run tested on top of its base: the PRs it stands on (`dependsOn`), then its own, in order. */
export function runContent(run: TestRun): number[] {
  return [...run.dependsOn, ...run.prs.map((pr) => pr.number)];
}

/** The PRs the queue merged since it had merged `from`, in merge order; null when one is no longer known. */
function queueMergesSince(state: QueueState, from: number): readonly PullRequestEntry[] | null {
  const merged = Object.values(state.prs)
    .filter((pr) => pr.state === "merged" && pr.mergeIndex !== null && pr.mergeIndex >= from)
    .sort((a, b) => (a.mergeIndex as number) - (b.mergeIndex as number));
  return merged.length === state.target.mergeCount - from ? merged : null;
}

/**
 * The Not Rocket Science rule (docs/queue.md#merging, #merging-in-lanes): the target holds a tested state of the run when it holds
 * the run's basis (no push from outside since) plus the queue's own merges only, each of the run's content PRs
 * merged so far merged after every PR ahead of it in the content that shares its lane, and every other PR the
 * queue merged since the run started lies in no lane of the content still to land (what landed already was
 * checked when it did). Changes in different lanes touch no
 * common target, so their order does not matter: the target is the tested content up to such changes. In single
 * mode every PR is in the one lane, so the merged content must be the first PRs in order and nothing else. Null
 * when the target holds no tested state of the run.
 */
export function targetOfRun(state: QueueState, run: TestRun): TargetOfRun | null {
  if (run.basisSha !== state.target.basisSha) return null;
  const mergedSince = queueMergesSince(state, run.mergeCountAtStart);
  if (mergedSince === null) return null;
  const content = runContent(run);
  const lane = content.flatMap((prNumber) => state.prs[prNumber] ?? []);
  if (lane.length !== content.length) return null;
  const merged = lane.filter((pr) => pr.state === "merged" && mergedSince.includes(pr));
  const outOfOrder = merged.some((pr) =>
    lane
      .slice(0, lane.indexOf(pr))
      .some(
        (ahead) =>
          inSameLane(state, ahead, pr) &&
          (!merged.includes(ahead) || (ahead.mergeIndex as number) > (pr.mergeIndex as number)),
      ),
  );
  if (outOfOrder) return null;
  const others = mergedSince.filter((pr) => !content.includes(pr.number));
  const landing = lane.filter((pr) => !merged.includes(pr));
  if (others.some((other) => landing.some((member) => inSameLane(state, member, other)))) return null;
  const prefix = mergedSince.every((pr, index) => pr.number === content[index]);
  return {
    unmerged: landing.map((pr) => pr.number),
    prefixOfTestedCommit: prefix,
  };
}
