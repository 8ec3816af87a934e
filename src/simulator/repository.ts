// The simulated repository: commits that know which PRs they hold, branches, the target branch, and the
// merge check. Every move of the target is checked the way production must behave: it only ever moves to
// exactly what a passed run tested, or, with lanes, to that plus PRs of other lanes.
import { targetsIntersect } from "../queue/index.ts";
import type { ContentKey } from "./content.ts";
import { EMPTY_CONTENT, withPr, withPrInOrder } from "./content.ts";
import type { Day, SimulatedPr } from "./model.ts";
import { impactedTargetsOf, pairConflicts } from "./model.ts";

export interface Commit {
  readonly sha: string;
  readonly parent: Commit | null;
  /** The PR this commit merged on its parent; null for the root. */
  readonly pr: number | null;
  readonly depth: number;
  readonly content: ContentKey;
  /** Hash of the PRs in merge order. */
  readonly order: number;
  /** Holds a broken PR: every CI run on it fails. */
  readonly broken: boolean;
}

export type BuildResult = { readonly head: Commit } | { readonly conflict: number };

export type MergeResult =
  | { readonly kind: "merged"; readonly sha: string }
  | { readonly kind: "target_moved"; readonly headSha: string }
  | { readonly kind: "rejected"; readonly message: string };

export class SimulatedRepository {
  target: Commit;
  /** Target moves that no passed run vouches for. */
  readonly violations: string[] = [];
  private readonly commits = new Map<string, Commit>();
  private readonly prs: ReadonlyMap<number, SimulatedPr>;
  /** Commits on which CI passed, and every commit order a passed commit starts with. */
  private readonly passed = new Set<string>();
  private readonly passedOrders = new Set<number>();
  /** When each PR landed on the target. */
  private readonly landedAt = new Map<number, number>();
  /** `${parent sha} ${PR}` → the commit merging that PR on that parent (see `commit`). */
  private readonly merges = new Map<string, Commit>();
  /** With lanes: the passed commits holding each PR that had not landed when CI passed on them. */
  private readonly passedHolding = new Map<number, Commit[]>();
  private nextSha = 1;

  /** `lanes`: the PRs' target groups when the queue runs lanes (see `PolicySpec.lanes`). */
  constructor(
    private readonly day: Day,
    private readonly lanes?: number,
  ) {
    this.prs = new Map(day.prs.map((pr) => [pr.number, pr]));
    this.target = this.commit(null, null);
  }

  /**
   * A new commit merging `prNumber` on `parent`. The queue makes its test branches' merge commits
   * reproducible (the same PR merged on the same commit with the same commit date is the same commit), so
   * the target can fast-forward from one run's tested commit to the next run's: a `mergeKey` says so, and the
   * commit made before under it is returned.
   */
  private commit(parent: Commit | null, prNumber: number | null, mergeKey?: string): Commit {
    const known = mergeKey === undefined ? undefined : this.merges.get(mergeKey);
    if (known !== undefined) return known;
    const commit: Commit = {
      sha: `c${this.nextSha++}`,
      parent,
      pr: prNumber,
      depth: parent === null ? 0 : parent.depth + 1,
      content: parent === null || prNumber === null ? EMPTY_CONTENT : withPr(parent.content, prNumber),
      order: parent === null || prNumber === null ? 0 : withPrInOrder(parent.order, prNumber),
      broken: (parent?.broken ?? false) || (prNumber !== null && this.prs.get(prNumber)?.broken === true),
    };
    this.commits.set(commit.sha, commit);
    if (mergeKey !== undefined) this.merges.set(mergeKey, commit);
    return commit;
  }

  /**
   * Whether `prNumber` fails to merge onto `onto`: it conflicts with a PR in it that had not landed on the
   * target when the PR was opened (the PR was written on top of everything landed before).
   */
  private conflictsOnto(onto: Commit, prNumber: number): boolean {
    const openedAt = this.prs.get(prNumber)?.arrivesAt ?? 0;
    for (let at: Commit | null = onto; at !== null && at.pr !== null; at = at.parent) {
      const landed = this.landedAt.get(at.pr);
      if (landed !== undefined && landed <= openedAt) return false;
      if (pairConflicts(this.day, at.pr, prNumber)) return true;
    }
    return false;
  }

  /** A test branch: `baseSha`, then each PR merged on top in order, its merge commit dated `commitDate`. */
  build(
    baseSha: string,
    merges: readonly { readonly number: number; readonly commitDate: number }[],
  ): BuildResult {
    let head = this.commits.get(baseSha);
    if (head === undefined) throw new Error(`the simulated repository has no commit ${baseSha}`);
    for (const { number, commitDate } of merges) {
      if (this.conflictsOnto(head, number)) return { conflict: number };
      head = this.commit(head, number, `${head.sha} ${number} ${commitDate}`);
    }
    return { head };
  }

  /** CI passed on `sha`: the target may become it, or (one PR at a time) any commit it starts with. */
  recordPass(sha: string): void {
    if (this.passed.has(sha)) return;
    this.passed.add(sha);
    const commit = this.commits.get(sha);
    if (this.lanes !== undefined && commit !== undefined) {
      // Not only down to the first landed PR: other lanes land PRs out of this commit's order.
      for (let at: Commit | null = commit; at !== null; at = at.parent) {
        if (at.pr === null || this.landedAt.has(at.pr)) continue;
        this.passedHolding.set(at.pr, [...(this.passedHolding.get(at.pr) ?? []), commit]);
      }
    }
    for (
      let at = this.commits.get(sha) ?? null;
      at !== null && !this.passedOrders.has(at.order);
      at = at.parent
    )
      this.passedOrders.add(at.order);
  }

  private descendsFromTarget(commit: Commit): boolean {
    let at: Commit | null = commit;
    while (at !== null && at.depth > this.target.depth) at = at.parent;
    return at === this.target;
  }

  /** merge_commit: the target moves to the tested commit itself, without force. */
  fastForward(sha: string, expectedHeadSha: string, now: number): MergeResult {
    if (this.target.sha !== expectedHeadSha) return { kind: "target_moved", headSha: this.target.sha };
    const commit = this.commits.get(sha);
    if (commit === undefined || !this.descendsFromTarget(commit)) {
      this.violations.push(`the queue asked to move the target to ${sha}, which does not contain it`);
      return { kind: "rejected", message: "Update is not a fast forward" };
    }
    if (!this.passed.has(sha)) this.violations.push(`the target moved to ${sha}, which no passed run tested`);
    this.land(commit, now);
    return { kind: "merged", sha };
  }

  /** squash / rebase: one PR on top of the target; the result must be what a passed run tested. */
  mergeOne(prNumber: number, expectedTargetSha: string, now: number): MergeResult {
    if (this.target.sha !== expectedTargetSha) return { kind: "target_moved", headSha: this.target.sha };
    if (this.conflictsOnto(this.target, prNumber)) return { kind: "rejected", message: "Merge conflict" };
    const commit = this.commit(this.target, prNumber);
    if (!this.passedOrders.has(commit.order) && !this.testedInItsLane(commit, prNumber)) {
      this.violations.push(
        `the target moved to ${commit.sha} (#${prNumber} merged), which no passed run tested`,
      );
    }
    this.land(commit, now);
    return { kind: "merged", sha: commit.sha };
  }

  /**
   * docs/queue.md#merging-in-lanes: a lane's PR may merge on a target that other lanes moved since its run. The target is then
   * fine when a passed commit holding the PR holds, up to the PR, nothing the target lacks, and every other PR
   * on the target impacts no target of the PR's: the code the PR's tests cover is what they tested. Up to the
   * PR: a group merged one PR at a time lands through the states its commit starts with, as in single mode.
   */
  private testedInItsLane(commit: Commit, prNumber: number): boolean {
    const lanes = this.lanes;
    if (lanes === undefined) return false;
    const own = impactedTargetsOf(this.day, prNumber, lanes);
    const onTarget = prsOf(commit);
    return (this.passedHolding.get(prNumber) ?? []).some((tested) => {
      const inTested = prsOf(upTo(tested, prNumber));
      if ([...inTested].some((pr) => !onTarget.has(pr))) return false;
      return [...onTarget].every(
        (pr) => inTested.has(pr) || !targetsIntersect(impactedTargetsOf(this.day, pr, lanes), own),
      );
    });
  }

  private land(commit: Commit, now: number): void {
    for (let at: Commit | null = commit; at !== null && at !== this.target; at = at.parent) {
      if (at.pr !== null) this.landedAt.set(at.pr, now);
    }
    this.target = commit;
  }
}

/** The commit of `commit`'s history that merged the PR. */
function upTo(commit: Commit, prNumber: number): Commit {
  let at: Commit | null = commit;
  while (at !== null && at.pr !== prNumber) at = at.parent;
  return at ?? commit;
}

/** The PRs a commit holds. */
function prsOf(commit: Commit): Set<number> {
  const prs = new Set<number>();
  for (let at: Commit | null = commit; at !== null; at = at.parent) if (at.pr !== null) prs.add(at.pr);
  return prs;
}
