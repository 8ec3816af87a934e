import { releaseStarted, removeFromQueue } from "./abandonment.ts";
import { onRuleRefused } from "./branch-rules.ts";
import { cancelDetail } from "./cancellation.ts";
import { fastForwardTarget, mergeIdOf, mergePullRequest } from "./commands.ts";
import type { QueueDraft } from "./draft.ts";
import type { MergeFailure } from "./events.ts";
import { startedPrs } from "./ordering.ts";
import { retireRun } from "./run-lifecycle.ts";
import type { MergeInFlight, QueueState, TestRun } from "./state.ts";
import { isTerminal } from "./state.ts";
import { moveTargetOutside, rebuildAllRuns, rememberHead } from "./target-branch.ts";
import { runContent, targetOfRun } from "./tested-content.ts";
import { requirePr, transition } from "./transitions.ts";

export interface MergePlan {
  readonly run: TestRun;
  readonly prNumbers: readonly number[];
  /** merge_commit: the target moves to the run's tested commit itself. */
  readonly fastForward: boolean;
}

/**
 * What a passed PR's run lets merge now: the PRs of its tested content not merged yet, all passed, when
 * the target holds a tested state of it (see targetOfRun). A PR vouched for by a run behind (docs/queue.md#failures) is
 * merged with that run's own PRs. `null` when its run tested it on a base the target no longer holds;
 * undefined when it is not its run's last PR not merged yet, or waits for PRs of its content still testing.
 */
function planFor(state: QueueState, prNumber: number): MergePlan | null | undefined {
  const runId = state.prs[prNumber]?.passingRunId;
  const run = runId == null ? undefined : state.runs[runId];
  // The run's last PR not merged yet plans for the run. In parallel mode that may be another than its last: a
  // PR of another lane tested with it may have merged from a run behind that did not hold it.
  const lastUnmerged = run?.prs.findLast((pr) => state.prs[pr.number]?.state !== "merged");
  if (run?.testBranchSha == null || lastUnmerged?.number !== prNumber) return undefined;
  const content = runContent(run);
  const waiting = content.map((number) => state.prs[number]?.state).filter((known) => known !== "merged");
  // A PR of its content left the queue (as the proof planner leaves it behind on a switch to parallel mode):
  // the run never merges; its PRs are tested again.
  if (waiting.some((known) => known === undefined || isTerminal(known))) return null;
  if (!waiting.every((known) => known === "tests_passed")) return undefined;
  const target = targetOfRun(state, run);
  if (target === null) return null;
  const { mergeMethod, mode } = state.settings;
  // Its tested commit holds the test branch's merges of PRs that were since merged as new commits.
  const rewritten = run.mergeCountAtStart < (state.target.rewrittenUpTo ?? 0);
  // merge_commit cannot move the target to the tested commit when that commit lacks what other lanes merged
  // since (docs/queue.md#merging-in-lanes), or holds other commits than the target for its PRs merged since. In parallel mode
  // its PRs are then merged onto the target as it is through GitHub's merge API with the "merge" method: the
  // other lanes' changes touch none of its targets, so the result is its tested content plus code its tests do
  // not see, and each PR still lands as a merge commit of its own commits, as merge_commit promises.
  // Rebuilding instead would retest a lane each time another lane merged first, serialising the lanes again.
  // In single mode nothing else may be on the target, so it is not the tested code: the runs are rebuilt.
  const fastForward = mergeMethod === "merge_commit" && !rewritten && target.prefixOfTestedCommit;
  if (mergeMethod === "merge_commit" && !fastForward && mode === "single") return null;
  return { run, prNumbers: target.unmerged, fastForward };
}

/**
 * The largest group of passed PRs that one passed run tested, on top of what the target holds: in single mode
 * the front of the stack; in parallel mode the front of a lane, whatever the other lanes do (docs/queue.md#merging-in-lanes).
 * When there is none: the passed PRs whose runs were tested on a base the target no longer holds (their runs
 * must be rebuilt), if any.
 */
function planGroup(state: QueueState): MergePlan | { readonly stale: readonly number[] } {
  const stale: number[] = [];
  const started = startedPrs(state);
  for (let index = started.length - 1; index >= 0; index--) {
    const prNumber = started[index] as number;
    const plan = planFor(state, prNumber);
    if (plan === null) stale.push(prNumber);
    else if (plan !== undefined) return plan;
  }
  return { stale };
}

/**
 * Puts a group in flight. Fast-forwarding (merge_commit) moves the target to the tested commit itself in one
 * step; else each PR is merged through GitHub's merge API, one at a time, in order, and the group stays in
 * flight until its last PR merged.
 */
export function mergeNext(draft: QueueDraft, plan: MergePlan): void {
  const state = draft.state;
  const { run, prNumbers: group, fastForward } = plan;
  const first = group[0] as number;
  const inFlight = fastForward ? group : [first];
  const merge: MergeInFlight = {
    id: mergeIdOf(run.id, inFlight),
    runId: run.id,
    prNumbers: group,
    inFlight,
    ...(fastForward ? {} : { rewrites: true }),
  };
  draft.update({ merging: merge });
  if (fastForward) draft.emit(fastForwardTarget(state, merge, run.testBranchSha as string));
  else {
    const method = state.settings.mergeMethod;
    draft.emit(
      mergePullRequest(state, merge, requirePr(draft, first), method === "merge_commit" ? "merge" : method),
    );
  }
}

/**
 * docs/queue.md#merging: merges passed PRs once everything they depend on merged. Nothing starts merging while paused
 * (docs/queue.md#queue-states) or while another merge is in flight: one at a time keeps the order.
 */
export function planMerge(draft: QueueDraft): void {
  const state = draft.state;
  if (state.merging !== null || state.status === "paused") return;
  const plan = planGroup(state);
  if ("run" in plan) {
    mergeNext(draft, plan);
    return;
  }
  if (plan.stale.length === 0) return;
  // The target does not hold what the runs were built on: rebuild rather than merge untested code. In single
  // mode every run is built on the ones ahead; in parallel mode only the stale runs' lanes are rebuilt.
  const detail = `${state.targetBranch} no longer matches the base its runs were built on; testing again.`;
  if (state.settings.mode === "single") rebuildAllRuns(draft, detail);
  else {
    for (const prNumber of plan.stale) {
      releaseStarted(draft, prNumber, { to: "waiting", reason: "target_moved", detail });
    }
  }
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
  } else if (run !== undefined && rest.length > 0)
    mergeNext(draft, { run, prNumbers: rest, fastForward: false });
  // The tested commits of the merged PRs' runs are behind the target now.
  const passingRuns = new Set([merge.runId, ...merged.map((prNumber) => draft.pr(prNumber)?.passingRunId)]);
  for (const runId of passingRuns) {
    if (runId != null && draft.run(runId)?.prs.every((pr) => draft.state.prs[pr.number]?.state === "merged"))
      retireRun(draft, runId);
  }
}

/** docs/queue.md#merging: a refused merge fails the PR with GitHub's reason, and what was built on it is rebuilt. */
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
  else if (failure.kind === "rule_refused") onRuleRefused(draft, merge, failure);
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
