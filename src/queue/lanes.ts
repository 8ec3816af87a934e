import { activePrs } from "./ordering.ts";
import type { ImpactedTargets, PullRequestEntry, QueueState } from "./state.ts";

/**
 * docs/queue.md#lanes: two PRs' impacted targets intersect when they share a target. "ALL" intersects everything
 * but an empty list: a PR that impacts nothing (documentation, say) cannot break anyone's tests.
 */
export function targetsIntersect(a: ImpactedTargets["targets"], b: ImpactedTargets["targets"]): boolean {
  if (a.length === 0 || b.length === 0) return false;
  if (a === "ALL" || b === "ALL") return true;
  const smaller = a.length <= b.length ? a : b;
  const larger = new Set(smaller === a ? b : a);
  return smaller.some((target) => larger.has(target));
}

/**
 * The targets a PR impacts at its current head; "ALL" when none were set for it (a PR past readiness always has
 * them in parallel mode, so this only makes an unknown PR conservative).
 */
export function currentTargets(pr: PullRequestEntry): ImpactedTargets["targets"] {
  const known = pr.impactedTargets;
  return known !== null && known.headSha === pr.headSha ? known.targets : "ALL";
}

/** Whether one PR's tests may be affected by the other: always in single mode, by their targets in parallel. */
export function inSameLane(state: QueueState, a: PullRequestEntry, b: PullRequestEntry): boolean {
  return state.settings.mode === "single" || targetsIntersect(currentTargets(a), currentTargets(b));
}

/**
 * docs/queue.md#lanes: of `ahead` (PRs in queue order, all ahead of `prNumbers`), those the PRs depend on: every one
 * in the same lane as one of them, and transitively as one of those, in queue order. In single mode, all of
 * them. A dependency's own dependencies are ahead of it, so one walk from the back finds the closure.
 */
export function dependenciesAmong(
  state: QueueState,
  prNumbers: readonly number[],
  ahead: readonly number[],
): readonly number[] {
  if (state.settings.mode === "single") return ahead;
  const lane = prNumbers.map((prNumber) => entryOf(state, prNumber));
  const dependencies: number[] = [];
  for (let index = ahead.length - 1; index >= 0; index--) {
    const candidate = entryOf(state, ahead[index] as number);
    if (lane.some((member) => inSameLane(state, member, candidate))) {
      lane.push(candidate);
      dependencies.unshift(candidate.number);
    }
  }
  return dependencies;
}

/**
 * For the metrics (docs/monitoring.md#merge-queue-metrics): how many independent groups the PRs under test or waiting to merge make, two
 * PRs being in one group when they are in the same lane, directly or through others. In single mode every PR
 * is in one lane.
 */
export function lanesInFlight(state: QueueState): number {
  let groups: PullRequestEntry[][] = [];
  for (const prNumber of activePrs(state)) {
    const pr = state.prs[prNumber] as PullRequestEntry;
    const joined = groups.filter((group) => group.some((member) => inSameLane(state, member, pr)));
    groups = [...groups.filter((group) => !joined.includes(group)), [...joined.flat(), pr]];
  }
  return groups.length;
}

function entryOf(state: QueueState, prNumber: number): PullRequestEntry {
  const entry = state.prs[prNumber];
  if (entry === undefined) throw new Error(`PR #${prNumber} has no entry`);
  return entry;
}
