// The test-health core: how a test is identified, classified and quarantined, whom it belongs to, how failures are
// summarised and how the listings sort. Pure rules; every other folder imports them from here.
export type {
  Classification,
  HealthStatus,
  QuarantineSetting,
  TestOutcome,
  TestRun,
} from "./classification.ts";
export {
  CLASSIFICATION_WINDOW_MS,
  classifyTest,
  healthyWithoutFailures,
  isQuarantined,
  quarantineSettings,
  stableBranchesOf,
} from "./classification.ts";
export { CODEOWNERS_PATHS, Codeowners, MAX_CODEOWNERS_BYTES, parseCodeowners } from "./codeowners.ts";
export type { FailureKind } from "./failure-summary.ts";
export { summarizeFailure } from "./failure-summary.ts";
export type {
  FailingTest,
  FailureCountKey,
  Page,
  PagePosition,
  QuarantineKey,
  StatusChangeKey,
} from "./listings.ts";
export {
  failureCountKey,
  forward,
  isFailureCountKey,
  isQuarantineKey,
  isStatusChangeKey,
  LISTING_SNAPSHOT_LIFETIME_MS,
  pageOf,
  quarantineKey,
  statusChangeKey,
} from "./listings.ts";
export type { TestCase, TestCaseHealth } from "./test-case.ts";
export { firstHealth, reclassifiedHealth, sameHealth, withQuarantine } from "./test-case-health.ts";
export type { CommonFailure, RunCounts } from "./test-statistics.ts";
export type { RepoRef } from "./test-identity.ts";
export { relativeFilePath, testCaseId } from "./test-identity.ts";
