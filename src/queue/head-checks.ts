// A queued PR's own CI result on its head commit (`pr_head_checks_observed`), kept on the PR for its odds
// (failure-odds.ts): a PR whose own checks failed is far likelier to fail in the queue. A failure on a head
// stays: a check passing later on the same commit does not undo another one failing.
import type { QueueDraft } from "./draft.ts";
import { evidenceOf } from "./failure-odds.ts";
import type { HeadCheckOutcome, QueueState } from "./state.ts";
import { isTerminal } from "./state.ts";
import { patchPr } from "./transitions.ts";

/** Whether the report changes what the PR records: a PR queued at that head, its first word or a failure. */
export function changesHeadChecks(
  state: QueueState,
  prNumber: number,
  headSha: string,
  outcome: HeadCheckOutcome,
): boolean {
  const pr = state.prs[prNumber];
  if (pr === undefined || isTerminal(pr.state) || pr.headSha !== headSha) return false;
  const recorded = evidenceOf(pr).headChecks;
  return recorded?.headSha !== headSha || (recorded.outcome === "success" && outcome === "failure");
}

export function onHeadChecksObserved(
  draft: QueueDraft,
  prNumber: number,
  headSha: string,
  outcome: HeadCheckOutcome,
): void {
  if (!changesHeadChecks(draft.state, prNumber, headSha, outcome)) return;
  const pr = draft.state.prs[prNumber];
  if (pr === undefined) return;
  patchPr(draft, prNumber, { evidence: { ...evidenceOf(pr), headChecks: { headSha, outcome } } });
}
