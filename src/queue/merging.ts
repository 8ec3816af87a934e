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
function unmergedTestedPrs(state: QueueState, run: TestRun): readonly number[] | null {
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
 * The longest front group of passed PRs that one passed run tested exactly, on top of what the target
 * holds: its last PR's passing run, whose unmerged PRs are that group. A group vouched for by a run behind
 * (contract 5.5) can only merge whole, together with that run's own PRs.
 */
function planGroup(state: QueueState, passed: readonly number[]): MergePlan | null {
  for (let count = passed.length; count > 0; count--) {
    const group = passed.slice(0, count);
    const last = group[count - 1];
    const runId = last === undefined ? undefined : state.prs[last]?.passingRunId;
    const run = runId == null ? undefined : state.runs[runId];
    if (run?.testBranchSha == null || run.prs.at(-1)?.number !== last) continue;
    // Its tested commit holds the test branch's merges of PRs that were since merged as new commits.
    const rewritten = run.mergeCountAtStart < (state.target.rewrittenUpTo ?? 0);
    if (rewritten && state.settings.mergeMethod === "merge_commit") continue;
    const unmerged = unmergedTestedPrs(state, run);
    if (unmerged !== null && sameNumbers(unmerged, group)) return { run, prNumbers: group };
  }
  return null;
}

/**
 * Puts a group in flight. merge_commit moves the target to the tested commit itself in one step;
 * squash / rebase merge one PR at a time, in order, and the group stays in flight until its last PR merged.
 */
function mergeNext(draft: QueueDraft, run: TestRun, group: readonly number[]): void {
  const state = draft.state;
  const method = state.settings.mergeMethod;
  const first = group[0] as number;
  const inFlight = method === "merge_commit" ? group : [first];
  const merge: MergeInFlight = {
    id: mergeIdOf(run.id, inFlight),
    runId: run.id,
    prNumbers: group,
    inFlight,
    ...(method === "merge_commit" ? {} : { rewrites: true }),
  };
  draft.update({ merging: merge });
  if (method === "merge_commit") draft.emit(fastForwardTarget(state, merge, run.testBranchSha as string));
  else draft.emit(mergePullRequest(state, merge, requirePr(draft, first), method));
}

/**
 * Contract 5.4: merges the passed PRs at the front, once everything ahead of them merged. Nothing starts
 * merging while paused (contract 5.8) or while another merge is in flight: one at a time keeps the order.
 */
export function planMerge(draft: QueueDraft): void {
  const state = draft.state;
  if (state.merging !== null || state.status === "paused") return;
  const started = startedPrs(state);
  const firstNotPassed = started.findIndex((prNumber) => state.prs[prNumber]?.state !== "tests_passed");
  const passed = firstNotPassed < 0 ? started : started.slice(0, firstNotPassed);
  if (passed.length === 0) return;
  const plan = planGroup(state, passed);
  if (plan === null) {
    // The target does not hold what the runs were built on: rebuild rather than merge untested code.
    rebuildAllRuns(
      draft,
      `${state.targetBranch} no longer matches the base its runs were built on; testing again.`,
    );
    return;
  }
  mergeNext(draft, plan.run, plan.prNumbers);
}

/** Cancellations that waited for the merge (see cancellation.ts) apply to the PRs it did not merge. */
function applyWaitingCancellations(draft: QueueDraft, prNumbers: readonly number[]): void {
  for (const prNumber of prNumbers) {
    const pr = draft.pr(prNumber);
    if (pr !== undefined && !isTerminal(pr.state) && pr.cancelRequest !== null) {
      removeFromQueue(draft, prNumber, {
        to: "cancelled",
        reason: pr.cancelRequest,
        detail: cancelDetail(pr.cancelRequest),
      });
    }
  }
}

/** Heads seen while the merge was in flight that the merge did not make were pushed from outside. */
function latestOutsideHead(seen: readonly string[], mergeSha: string | null): string | undefined {
  return seen.filter((sha) => sha !== mergeSha).at(-1);
}

export function onMergeSucceeded(draft: QueueDraft, mergeId: string, sha: string): void {
  const merge = draft.state.merging;
  if (merge?.id !== mergeId) return;
  const target = draft.state.target;
  const merged = merge.inFlight;
  merged.forEach((prNumber, index) => {
    transition(
      draft,
      prNumber,
      "merged",
      "merged",
      `Merged into ${draft.state.targetBranch} (${sha.slice(0, 7)}).${merge.note === undefined ? "" : ` ${merge.note}`}`,
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
      mergeCount: target.mergeCount + merged.length,
      recentHeads: rememberHead(target, sha),
      headsSeenWhileMerging: [],
      ...(merge.rewrites === true ? { rewrittenUpTo: target.mergeCount + merged.length } : {}),
    },
  });
  const rest = merge.prNumbers.slice(merged.length);
  const run = merge.runId === null ? undefined : draft.run(merge.runId);
  const outside = latestOutsideHead(target.headsSeenWhileMerging, sha);
  if (outside !== undefined) {
    moveTargetOutside(draft, outside);
    applyWaitingCancellations(draft, rest);
  } else if (run !== undefined && rest.length > 0) mergeNext(draft, run, rest);
  // The tested commits of the merged PRs' runs are behind the target now.
  const passingRuns = new Set([merge.runId, ...merged.map((prNumber) => draft.pr(prNumber)?.passingRunId)]);
  for (const runId of passingRuns) {
    if (runId != null && draft.run(runId)?.prs.every((pr) => draft.state.prs[pr.number]?.state === "merged"))
      retireRun(draft, runId);
  }
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
    const outside = latestOutsideHead(seen, null);
    if (outside !== undefined) moveTargetOutside(draft, outside);
  }
  applyWaitingCancellations(draft, merge.prNumbers);
}
