import { startBisections } from "./bisection.ts";
import { onBranchRulesRead } from "./branch-rules.ts";
import { onCancelRequested, onRestartRequested } from "./cancellation.ts";
import type { QueueCommand } from "./commands.ts";
import { onHeadChecksObserved } from "./head-checks.ts";
import { directMergeUnderway, onDirectMergeChecked, planDirectMerge } from "./direct-merge.ts";
import { QueueDraft } from "./draft.ts";
import type { QueueEvent } from "./events.ts";
import { resolvePendingFailures } from "./failures.ts";
import { onRunFailuresExplained } from "./flake-evidence.ts";
import { onMergeFailed, onMergeSucceeded, planMerge } from "./merging.ts";
import { notifyTransitions } from "./notifications.ts";
import { planProofLanding, startProofRuns } from "./proof-planner.ts";
import { applyPendingMode, onQueueUpdated } from "./queue-control.ts";
import {
  onRequiredStatusesResolved,
  onStatusReported,
  onTestBranchConflict,
  onTestBranchCreated,
  onTick,
  startRuns,
} from "./runs.ts";
import { usesProofPlanner } from "./settings.ts";
import type { QueueState } from "./state.ts";
import { onImpactedTargetsSet, onMergeabilityObserved, onSubmitted } from "./submissions.ts";
import { onTargetMoved } from "./target-branch.ts";

export interface StepResult {
  /** The input state itself when the event changed nothing. */
  readonly state: QueueState;
  readonly commands: readonly QueueCommand[];
}

function apply(draft: QueueDraft, event: QueueEvent): void {
  switch (event.type) {
    case "pr_submitted":
      return onSubmitted(draft, event.submissionId, event.pr, event.priority, event.noBatch);
    case "cancel_requested":
      return onCancelRequested(draft, event.prNumber, event.reason, event.by);
    case "restart_requested":
      return onRestartRequested(draft, event.prNumber);
    case "mergeability_observed":
      return onMergeabilityObserved(draft, event.prNumber, event.headSha, event.mergeability);
    case "impacted_targets_set":
      return onImpactedTargetsSet(draft, event.prNumber, { headSha: event.headSha, targets: event.targets });
    case "queue_updated":
      return onQueueUpdated(draft, event.settings, event.status);
    case "test_branch_created":
      return onTestBranchCreated(draft, event.runId, event.sha);
    case "test_branch_conflict":
      return onTestBranchConflict(draft, event.runId, event.prNumber);
    case "required_statuses_resolved":
      return onRequiredStatusesResolved(draft, event.runId, event.statuses, event.source);
    case "status_reported":
      return onStatusReported(draft, event.sha, event.report);
    case "target_branch_moved":
      return onTargetMoved(draft, event.sha);
    case "merge_succeeded":
      return onMergeSucceeded(draft, event.mergeId, event.sha);
    case "merge_failed":
      return onMergeFailed(draft, event.mergeId, event.prNumber, event.failure);
    case "direct_merge_checked":
      return onDirectMergeChecked(draft, event.prNumber, event, event.facts);
    case "pr_head_checks_observed":
      return onHeadChecksObserved(draft, event.prNumber, event.headSha, event.outcome);
    case "branch_rules_read":
      return onBranchRulesRead(draft, event.rules);
    case "run_failures_explained":
      return onRunFailuresExplained(draft, event.sha, event.failingTests);
    case "tick":
      return onTick(draft);
  }
}

/**
 * Brings the queue to rest after an event, again until nothing changes, since each move may enable another (a
 * PR that fails ends the runs behind it, which lets a mode switch end, which changes readiness…). Each round
 * asks which planner is in charge: a mode switch that ends within the round hands the queue to the other.
 * Applied to a state at rest it changes nothing, so a repeated event stays a no-op.
 */
function settle(draft: QueueDraft): void {
  let revision: number;
  do {
    revision = draft.revision;
    if (usesProofPlanner(draft.state.settings)) settleProofRound(draft);
    else settleChainRound(draft);
  } while (draft.revision !== revision);
}

/**
 * One round of the FIFO chain: decide pending failures (front to back), merge what passed, finish a mode
 * switch, start the bisection pool's runs, check a PR for a direct merge, then start the main line's runs
 * unless that check holds them back.
 */
function settleChainRound(draft: QueueDraft): void {
  resolvePendingFailures(draft);
  planMerge(draft);
  applyPendingMode(draft);
  if (usesProofPlanner(draft.state.settings)) return;
  startBisections(draft);
  planDirectMerge(draft);
  if (!directMergeUnderway(draft.state)) startRuns(draft);
}

/**
 * One round of the proof planner, which decides failures as runs end (proof-verdicts.ts): landings, a mode
 * switch, a direct merge and new runs.
 */
function settleProofRound(draft: QueueDraft): void {
  planProofLanding(draft);
  applyPendingMode(draft);
  if (!usesProofPlanner(draft.state.settings)) return;
  planDirectMerge(draft);
  if (!directMergeUnderway(draft.state)) startProofRuns(draft);
}

/**
 * The queue core: the next state and the commands to execute for one event at time `now` (epoch ms).
 * Pure: no I/O, no clock, no randomness, and the input state is never mutated.
 */
export function step(state: QueueState, event: QueueEvent, now: number): StepResult {
  const draft = new QueueDraft(state, now);
  apply(draft, event);
  settle(draft);
  notifyTransitions(draft);
  return { state: draft.result(), commands: draft.commands };
}
