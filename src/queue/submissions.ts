import type { QueueDraft } from "./draft.ts";
import type { PullRequestFacts } from "./events.ts";
import { DEFAULT_PRIORITY_VALUE } from "./priority.ts";
import { isReady, readinessDetail, readinessOf } from "./readiness.ts";
import type { ImpactedTargets, ProviderMergeability, PullRequestEntry } from "./state.ts";
import { isTerminal } from "./state.ts";
import { enterQueue, patchPr, refreshReadiness } from "./transitions.ts";

function newSubmission(
  draft: QueueDraft,
  submissionId: string,
  facts: PullRequestFacts,
  priority: number | null,
  noBatch: boolean,
): PullRequestEntry {
  const state = draft.state;
  const pending: PullRequestEntry = {
    submissionId,
    submissionSeq: state.nextSubmissionSeq,
    number: facts.number,
    title: facts.title,
    headSha: facts.headSha,
    baseBranch: facts.baseBranch,
    author: facts.author,
    priorityValue: priority ?? DEFAULT_PRIORITY_VALUE,
    usedDefaultPriority: priority === null,
    noBatch,
    submittedAt: draft.now,
    state: "pending",
    stateReason: "submitted",
    stateDetail: "",
    stateChangedAt: draft.now,
    mergeability: facts.mergeability,
    impactedTargets: null,
    testRunId: null,
    passingRunId: null,
    failuresBehind: 0,
    mergeIndex: null,
    cancelRequest: null,
    history: [],
  };
  const readiness = readinessOf(state, pending);
  const initial = isReady(readiness) ? "pending" : "not_ready";
  const detail = `Submitted. ${readinessDetail(state, readiness)}`;
  return {
    ...pending,
    state: initial,
    stateDetail: detail,
    history: [{ state: initial, at: draft.now, reason: "submitted", detail }],
  };
}

/**
 * Contract 5.1: a PR not in the queue (or terminal) starts a new submission; one already queued only
 * changes its priority and noBatch. Contract 5.8: a draining queue takes no new submissions.
 */
export function onSubmitted(
  draft: QueueDraft,
  submissionId: string,
  facts: PullRequestFacts,
  priority: number | null,
  noBatch: boolean,
): void {
  const existing = draft.pr(facts.number);
  if (existing !== undefined && !isTerminal(existing.state)) {
    const priorityValue = priority ?? existing.priorityValue;
    if (priorityValue === existing.priorityValue && noBatch === existing.noBatch) return;
    patchPr(draft, facts.number, {
      priorityValue,
      usedDefaultPriority: priority === null && existing.usedDefaultPriority,
      noBatch,
    });
    return;
  }
  if (draft.state.status === "draining") return;
  enterQueue(draft, newSubmission(draft, submissionId, facts, priority, noBatch));
  draft.update({ nextSubmissionSeq: draft.state.nextSubmissionSeq + 1 });
}

const SETTLED: ReadonlySet<ProviderMergeability> = new Set(["mergeable", "not_mergeable"]);

/**
 * Contract 5.1 readiness. GitHub recomputes mergeability after every push to the target branch and says
 * "in progress" meanwhile; that keeps the last verdict rather than taking every queued PR out of readiness
 * after each merge.
 */
export function onMergeabilityObserved(
  draft: QueueDraft,
  prNumber: number,
  headSha: string,
  mergeability: ProviderMergeability,
): void {
  const pr = draft.pr(prNumber);
  if (pr === undefined || isTerminal(pr.state) || pr.headSha !== headSha || pr.mergeability === mergeability)
    return;
  if (SETTLED.has(pr.mergeability) && !SETTLED.has(mergeability)) return;
  patchPr(draft, prNumber, { mergeability });
  refreshReadiness(draft, prNumber);
}

/** setImpactedTargets (contract 5.7): readiness in parallel mode needs targets for the current head. */
export function onImpactedTargetsSet(
  draft: QueueDraft,
  prNumber: number,
  impactedTargets: ImpactedTargets,
): void {
  const pr = draft.pr(prNumber);
  if (pr === undefined || isTerminal(pr.state)) return;
  const known = pr.impactedTargets;
  if (
    known !== null &&
    known.headSha === impactedTargets.headSha &&
    sameTargets(known.targets, impactedTargets.targets)
  ) {
    return;
  }
  patchPr(draft, prNumber, { impactedTargets });
  refreshReadiness(draft, prNumber);
}

function sameTargets(a: ImpactedTargets["targets"], b: ImpactedTargets["targets"]): boolean {
  if (a === "ALL" || b === "ALL") return a === b;
  return a.length === b.length && a.every((target, index) => target === b[index]);
}
