export type { BranchRule, BranchRulesState } from "./branch-rule-facts.ts";
export type { HonouredRule } from "./branch-rules.ts";
export { honouredRules, ruleBlockingLanding } from "./branch-rules.ts";
export { compact } from "./compaction.ts";
export type { QueueCommand, TestBranchMerge } from "./commands.ts";
export type { MergeFailure, PullRequestFacts, QueueEvent } from "./events.ts";
export { isInert } from "./inert-events.ts";
export { lanesInFlight, targetsIntersect } from "./lanes.ts";
export { knownFlakyFailures } from "./flake-evidence.ts";
export { queuePosition } from "./ordering.ts";
export { commentMarker } from "./pr-comment.ts";
export {
  DEFAULT_PRIORITY_NAME,
  parsePriority,
  priorityNameOf,
  PRIORITY_VALUES,
  skipsTheLine,
} from "./priority.ts";
export type { Readiness } from "./readiness.ts";
export { readinessOf } from "./readiness.ts";
export { inProgressRuns } from "./run-lifecycle.ts";
export type { DirectMergeMode, MergeMethod, OptimizationMode, QueueMode, QueueSettings } from "./settings.ts";
export { DEFAULT_QUEUE_SETTINGS } from "./settings.ts";
export type {
  CancelReason,
  FailingTest,
  FailureReason,
  ImpactedTargets,
  NewQueue,
  ProviderMergeability,
  MergeabilityRecheck,
  PullRequestEntry,
  PullRequestState,
  QueueState,
  QueueStatus,
  RequeueReason,
  RequiredStatusesSource,
  RunPurpose,
  StateReason,
  TestHealth,
  TestRun,
  TestRunStatus,
  Transition,
} from "./state.ts";
export { initialQueueState, isTerminal } from "./state.ts";
export type { CheckRunReport, CommitStatusReport, StatusReport } from "./status-reports.ts";
export { outcomeOf } from "./status-reports.ts";
export type { StepResult } from "./step.ts";
export { step } from "./step.ts";
export {
  acceptsNewSubmissions,
  hasNonTerminalPullRequests,
  mergeabilityRechecksDue,
  nextDeadline,
  pullRequestsToRecheck,
} from "./queries.ts";
