import type { QueueDraft } from "./draft.ts";
import type { PullRequestFacts } from "./events.ts";
import { DEFAULT_PRIORITY_VALUE } from "./priority.ts";
import { isReady, readinessDetail, readinessOf } from "./readiness.ts";
import type {
  ImpactedTargets,
  MergeabilityRecheck,
  ProviderMergeability,
  PullRequestEntry,
} from "./state.ts";
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
    mergeabilityRecheck: SETTLED.has(facts.mergeability) ? null : recheckAfter(draft.now, 1),
    impactedTargets: null,
    testRunId: null,
    passingRunId: null,
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
 * docs/queue.md#pr-states: a PR not in the queue (or terminal) starts a new submission; one already queued only
 * changes its priority and noBatch. docs/queue.md#queue-states: a draining queue takes no new submissions.
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

const FIRST_RECHECK_MS = 1000;
const LONGEST_RECHECK_MS = 30_000;

/**
 * GitHub computes mergeability in the background, usually within seconds, and sends no webhook when it is
 * done: ask again after 1 s, then 2, 4… up to 30 s, rather than at the next poll.
 */
function recheckAfter(now: number, reads: number): MergeabilityRecheck {
  return { at: now + Math.min(LONGEST_RECHECK_MS, FIRST_RECHECK_MS * 2 ** (reads - 1)), reads };
}

/**
 * Readiness (docs/queue.md#readiness). GitHub recomputes mergeability after every push to the target branch and says
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
  if (pr === undefined || isTerminal(pr.state)) return;
  // States saved before rechecks existed have no such field.
  const recheck = pr.mergeabilityRecheck ?? null;
  if (pr.headSha !== headSha || (SETTLED.has(pr.mergeability) && !SETTLED.has(mergeability))) {
    // No verdict on the PR as queued: a recheck still waiting for one backs off.
    if (recheck !== null) {
      patchPr(draft, prNumber, { mergeabilityRecheck: recheckAfter(draft.now, recheck.reads + 1) });
    }
    return;
  }
  if (!SETTLED.has(mergeability)) {
    const reads = (recheck?.reads ?? 0) + 1;
    patchPr(draft, prNumber, { mergeability, mergeabilityRecheck: recheckAfter(draft.now, reads) });
  } else if (pr.mergeability !== mergeability || recheck !== null) {
    patchPr(draft, prNumber, { mergeability, mergeabilityRecheck: null });
  }
  if (pr.mergeability !== mergeability) refreshReadiness(draft, prNumber);
}

/** setImpactedTargets (docs/queue.md#impacted-targets): readiness in parallel mode needs targets for the current head. */
export function onImpactedTargetsSet(
  draft: QueueDraft,
  prNumber: number,
  impactedTargets: ImpactedTargets,
): void {
  const pr = draft.pr(prNumber);
  // Targets of another head say nothing of this submission's code; the shell gives them again to the
  // submission of that head. Taking them would move a started PR into every lane meanwhile.
  if (pr === undefined || isTerminal(pr.state) || pr.headSha !== impactedTargets.headSha) return;
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
