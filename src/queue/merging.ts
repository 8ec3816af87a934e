import { removeFromQueue } from "./abandonment.ts";
import { cancelDetail } from "./cancellation.ts";
import { fastForwardTarget, mergeIdOf, mergePullRequest } from "./commands.ts";
import type { QueueDraft } from "./draft.ts";
import type { MergeFailure } from "./events.ts";
import { startedPrs } from "./ordering.ts";
import { retireRun } from "./run-lifecycle.ts";
import type { MergeInFlight, QueueState, TestRun } from "./state.ts";
import { isTerminal } from "./state.ts";
import { moveTargetOutside, rebuildAllRuns, rememberHead } from "./target-branch.ts";
import { requirePr, transition } from "./transitions.ts";

/**
 * The Not Rocket Science check (contract 5.4): the PRs of a run's tested commit still to be merged, when
 * the target holds exactly the run's predicted base minus those (same basis, and since the run started the
 * queue merged precisely the first PRs of its base, in order); null when it does not.
 */
export function unmergedTestedPrs(state: QueueState, run: TestRun): readonly number[] | null {
  if (run.basisSha !== state.target.basisSha) return null;
  const merged = state.target.mergeCount - run.mergeCountAtStart;
  const content = [...run.dependsOn, ...run.prs.map((pr) => pr.number)];
  if (merged < 0 || merged > content.length) return null;
  for (let index = 0; index < merged; index++) {
    const pr = state.prs[content[index] as number];
    if (pr?.state !== "merged" || pr.mergeIndex !== run.mergeCountAtStart + index) return null;
  }
  return content.slice(merged);
}

function sameNumbers(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}

interface MergePlan {
  readonly run: TestRun;
  readonly prNumbers: readonly number[];
}

/**
 * merge_commit: the target moves to a tested commit itself, so the longest front group of passed PRs whose
 * last PR's passing run tested exactly that group on top of the current target.
 */
function planFastForward(state: QueueState, passed: readonly number[]): MergePlan | null {
  for (let count = passed.length; count > 0; count--) {
    const group = passed.slice(0, count);
    const last = group[count - 1];
    const runId = last === undefined ? undefined : state.prs[last]?.passingRunId;
    const run = runId == null ? undefined : state.runs[runId];
    if (run?.testBranchSha == null || run.prs.at(-1)?.number !== last) continue;
    const unmerged = unmergedTestedPrs(state, run);
    if (unmerged !== null && sameNumbers(unmerged, group)) return { run, prNumbers: group };
  }
  return null;
}

/** squash / rebase: one PR at a time, in queue order, each the next PR of its passing run's tested commit. */
function planPullRequestMerge(state: QueueState, first: number): MergePlan | null {
  const runId = state.prs[first]?.passingRunId;
  const run = runId == null ? undefined : state.runs[runId];
  if (run === undefined) return null;
  return unmergedTestedPrs(state, run)?.[0] === first ? { run, prNumbers: [first] } : null;
}

/**
 * Contract 5.4: merges the passed PRs at the front, once everything ahead of them merged. Nothing merges
 * while paused (contract 5.8) or while another merge is in flight; one merge at a time keeps the order.
 */
export function planMerge(draft: QueueDraft): void {
  const state = draft.state;
  if (state.merging !== null || state.status === "paused") return;
  const started = startedPrs(state);
  const firstNotPassed = started.findIndex((prNumber) => state.prs[prNumber]?.state !== "tests_passed");
  const passed = firstNotPassed < 0 ? started : started.slice(0, firstNotPassed);
  const first = passed[0];
  if (first === undefined) return;
  const method = state.settings.mergeMethod;
  const plan =
    method === "merge_commit" ? planFastForward(state, passed) : planPullRequestMerge(state, first);
  if (plan === null) {
    // The target does not hold what the runs were built on: rebuild rather than merge untested code.
    rebuildAllRuns(
      draft,
      `${state.targetBranch} no longer matches the base its runs were built on; testing again.`,
    );
    return;
  }
  const merge: MergeInFlight = {
    id: mergeIdOf(plan.run.id, plan.prNumbers),
    runId: plan.run.id,
    prNumbers: plan.prNumbers,
  };
  draft.update({ merging: merge });
  if (method === "merge_commit")
    draft.emit(fastForwardTarget(state, merge, plan.run.testBranchSha as string));
  else draft.emit(mergePullRequest(state, merge, requirePr(draft, first), method));
}

/** After a merge result: unknown heads seen meanwhile that were not the merge were pushed from outside. */
function settleHeadsSeen(draft: QueueDraft, seen: readonly string[]): void {
  const known = draft.state.target.recentHeads;
  const outside = seen.filter((sha) => !known.includes(sha));
  const latest = outside.at(-1);
  if (latest !== undefined) moveTargetOutside(draft, latest);
}

export function onMergeSucceeded(draft: QueueDraft, mergeId: string, sha: string): void {
  const merge = draft.state.merging;
  if (merge?.id !== mergeId) return;
  const target = draft.state.target;
  merge.prNumbers.forEach((prNumber, index) => {
    transition(
      draft,
      prNumber,
      "merged",
      "merged",
      `Merged into ${draft.state.targetBranch} (${sha.slice(0, 7)}).`,
      {
        mergeIndex: target.mergeCount + index,
        cancelRequest: null,
      },
    );
  });
  draft.update({
    merging: null,
    target: {
      ...target,
      headSha: sha,
      mergeCount: target.mergeCount + merge.prNumbers.length,
      recentHeads: rememberHead(target, sha),
      headsSeenWhileMerging: [],
    },
  });
  const run = draft.run(merge.runId);
  if (run?.prs.every((pr) => draft.state.prs[pr.number]?.state === "merged")) retireRun(draft, run.id);
  settleHeadsSeen(draft, target.headsSeenWhileMerging);
}

/** Contract 5.4: a refused merge fails the PR with GitHub's reason, and what was built on it is rebuilt. */
export function onMergeFailed(
  draft: QueueDraft,
  mergeId: string,
  prNumber: number,
  failure: MergeFailure,
): void {
  const merge = draft.state.merging;
  if (merge?.id !== mergeId) return;
  const seen = draft.state.target.headsSeenWhileMerging;
  draft.update({ merging: null, target: { ...draft.state.target, headsSeenWhileMerging: [] } });
  if (failure.kind === "target_moved") moveTargetOutside(draft, failure.headSha);
  else {
    const cancelRequest = draft.pr(prNumber)?.cancelRequest ?? null;
    if (cancelRequest !== null) {
      removeFromQueue(draft, prNumber, {
        to: "cancelled",
        reason: cancelRequest,
        detail: cancelDetail(cancelRequest),
      });
    } else if (failure.kind === "pr_head_moved") {
      removeFromQueue(draft, prNumber, {
        to: "cancelled",
        reason: "pr_updated",
        detail: cancelDetail("pr_updated"),
      });
    } else {
      removeFromQueue(draft, prNumber, {
        to: "failed",
        reason: "merge_rejected",
        detail: `GitHub refused the merge: ${failure.message}`,
      });
    }
    settleHeadsSeen(draft, seen);
  }
  for (const other of merge.prNumbers) {
    const pr = draft.pr(other);
    if (pr !== undefined && !isTerminal(pr.state) && pr.cancelRequest !== null) {
      removeFromQueue(draft, other, {
        to: "cancelled",
        reason: pr.cancelRequest,
        detail: cancelDetail(pr.cancelRequest),
      });
    }
  }
}
