export type { BranchRule, BranchRulesState } from "./branch-rule-facts.ts";
export type { HonouredRule } from "./branch-rules.ts";
export { honouredRules, ruleBlockingLanding } from "./branch-rules.ts";
export { compact } from "./compaction.ts";
export type { QueueCommand, TestBranchMerge } from "./commands.ts";
export type { MergeFailure, PullRequestFacts, QueueEvent } from "./events.ts";
export { isInert } from "./inert-events.ts";
export { knownFlakyFailures } from "./flake-evidence.ts";
export { commentMarker } from "./pr-comment.ts";
export { parsePriority } from "./priority.ts";
export type { Readiness } from "./readiness.ts";
export type { DirectMergeMode, MergeMethod, OptimizationMode, QueueMode, QueueSettings } from "./settings.ts";
export { DEFAULT_QUEUE_SETTINGS } from "./settings.ts";
export type {
  CancelReason,
  FailingTest,
  FailureReason,
  NewQueue,
  ProviderMergeability,
  MergeabilityRecheck,
  PullRequestEntry,
  PullRequestState,
  QueueState,
  QueueStatus,
  RequiredStatusesSource,
  StateReason,
  TestHealth,
  TestRun,
  TestRunStatus,
  Transition,
} from "./state.ts";
export { initialQueueState, isTerminal } from "./state.ts";
export type { CheckRunReport, CommitStatusReport, StatusReport } from "./status-reports.ts";
export type { StepResult } from "./step.ts";
export { step } from "./step.ts";
export {
  acceptsNewSubmissions,
  hasNonTerminalPullRequests,
  mergeabilityRechecksDue,
  nextDeadline,
  pullRequestsToRecheck,
} from "./queries.ts";
