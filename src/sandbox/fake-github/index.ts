// A stateful fake GitHub for whole-queue scenario tests (bors-ng's ServerMock is the model): give its
// `fetch` to the app's Octokit, act on repositories as people and CI do, deliver the webhooks it returns
// (or drains with `takeWebhooks()`), and assert on branches, PRs, comments and statuses.
export { FakeGitHub } from "./fake-github.ts";
export type { FakeGitHubOptions, InjectedFailure, RecordedRequest } from "./fake-github.ts";
export { FakeRepository } from "./fake-repository.ts";
export type {
  CheckDelivery,
  IssueCommentDelivery,
  OpenPullRequestOptions,
  RepositoryOptions,
  StatusDelivery,
  StatusReportOptions,
} from "./fake-repository.ts";
export { applyChanges, CommitGraph, emptyTree, mergeTrees } from "./git.ts";
export type { Commit, FileChanges, Tree, TreeMerge } from "./git.ts";
export type { CheckConclusion, CheckRunReport, CheckStatus, StatusState } from "./check-results.ts";
export type { MergeMethod } from "./merge-plans.ts";
export type {
  Mergeability,
  MergeableState,
  PullRequestDelivery,
  PullRequestRecord,
} from "./pull-requests.ts";
export type { BranchProtection, Role } from "./repository-settings.ts";
export {
  checkRunPayload,
  checkSuitePayload,
  issueCommentPayload,
  pullRequestPayload,
  pushPayload,
  statusPayload,
} from "./webhook-payloads.ts";
export type {
  AnyWebhookDelivery,
  CheckRunPayload,
  CheckSuitePayload,
  IssueCommentPayload,
  PullRequestPayload,
  PushPayload,
  StatusPayload,
} from "./webhook-payloads.ts";
export type { WebhookDelivery } from "./world.ts";
export { fakeOctokit, fakeOctokitClass } from "./fake-octokit.ts";
