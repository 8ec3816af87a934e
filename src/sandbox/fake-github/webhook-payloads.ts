// Webhook payloads in GitHub's shapes, built from the fake's state. Every payload carries `repository`,
// `sender` and, when the app is installed, `installation { id }`, which Probot uses to authenticate.
import type { CheckRunRecord, CheckSuiteRecord, CommitStatusRecord } from "./check-results.ts";
import type { CommentRecord } from "./conversation.ts";
import type { Commit } from "./git.ts";
import type { PullRequestRecord } from "./pull-requests.ts";
import { mergeabilityUnknown } from "./pull-requests.ts";
import type { FakeRepository } from "./fake-repository.ts";
import {
  accountJson,
  checkRunJson,
  checkSuiteJson,
  commentJson,
  commitJson,
  installationJson,
  pullRequestIssueJson,
  pullRequestJson,
  repositoryJson,
  statusJson,
} from "./representations.ts";
import type { WebhookDelivery } from "./world.ts";

const zeroSha = "0000000000000000000000000000000000000000";

function envelope(repo: FakeRepository, sender: string) {
  const installation = installationJson(repo);
  return {
    repository: repositoryJson(repo),
    sender: accountJson(repo.world, sender),
    ...(installation && { installation }),
  };
}

export type PullRequestAction =
  "opened" | "closed" | "reopened" | "synchronize" | "converted_to_draft" | "ready_for_review" | "edited";

export interface PullRequestPayloadExtras {
  /** `synchronize`: the head before and after the push. */
  readonly before?: string;
  readonly after?: string;
  /** `edited`: what changed, e.g. `{ base: { ref: { from: "main" }, sha: { from } } }`. */
  readonly changes?: Record<string, unknown>;
}

export function pullRequestPayload(
  repo: FakeRepository,
  pr: PullRequestRecord,
  action: PullRequestAction,
  sender: string,
  extras: PullRequestPayloadExtras = {},
) {
  return {
    action,
    number: pr.number,
    ...extras,
    // GitHub computes mergeability in the background, after the event: an app must read the PR to know.
    pull_request: pullRequestJson(repo, pr, mergeabilityUnknown),
    ...envelope(repo, sender),
  };
}

export function issueCommentPayload(
  repo: FakeRepository,
  pr: PullRequestRecord,
  comment: CommentRecord,
  action: "created" | "edited",
  sender: string,
  changes?: { body: { from: string } },
) {
  return {
    action,
    ...(changes && { changes }),
    issue: pullRequestIssueJson(repo, pr),
    comment: commentJson(repo, comment),
    ...envelope(repo, sender),
  };
}

function pushedCommitJson(repo: FakeRepository, commit: Commit, parent: Commit | undefined) {
  const paths = new Set([...commit.tree.keys(), ...(parent?.tree.keys() ?? [])]);
  const changed = (test: (path: string) => boolean) => [...paths].filter(test).sort();
  const person = {
    name: commit.author,
    email: `${commit.author}@users.noreply.github.com`,
    username: commit.author,
  };
  return {
    id: commit.sha,
    tree_id: commit.treeSha,
    distinct: true,
    message: commit.message,
    timestamp: commit.date,
    url: `${repo.htmlUrl}/commit/${commit.sha}`,
    author: person,
    committer: person,
    added: changed((path) => commit.tree.has(path) && !parent?.tree.has(path)),
    removed: changed((path) => !commit.tree.has(path) && parent?.tree.has(path) === true),
    modified: changed(
      (path) =>
        commit.tree.has(path) &&
        parent?.tree.has(path) === true &&
        commit.tree.get(path) !== parent.tree.get(path),
    ),
  };
}

export interface RefMove {
  readonly branch: string;
  readonly before: string | undefined;
  readonly after: string | undefined;
  readonly pusher: string;
}

/**
 * GitHub lists at most 20 pushed commits, oldest first (for a new branch, those no other branch has);
 * `forced` when `before` is not an ancestor of `after`.
 */
export function pushPayload(repo: FakeRepository, move: RefMove) {
  const { before, after } = move;
  const pushed =
    after === undefined
      ? []
      : before === undefined
        ? repo.commitsOnlyOn(move.branch, after)
        : repo.commitsBetween(before, after);
  const toJson = (commit: Commit) =>
    pushedCommitJson(
      repo,
      commit,
      commit.parents[0] === undefined ? undefined : repo.commitOf(commit.parents[0]),
    );
  const envelopeForPush = envelope(repo, move.pusher);
  return {
    ref: `refs/heads/${move.branch}`,
    before: before ?? zeroSha,
    after: after ?? zeroSha,
    created: before === undefined,
    deleted: after === undefined,
    forced: before !== undefined && after !== undefined && !repo.isAncestor(before, after),
    base_ref: null,
    compare: `${repo.htmlUrl}/compare/${(before ?? zeroSha).slice(0, 12)}...${(after ?? zeroSha).slice(0, 12)}`,
    commits: pushed.slice(-20).map(toJson),
    head_commit: after === undefined ? null : toJson(repo.commitOf(after)),
    pusher: { name: move.pusher, email: `${move.pusher}@users.noreply.github.com` },
    ...envelopeForPush,
    repository: {
      ...envelopeForPush.repository,
      owner: { ...envelopeForPush.repository.owner, name: repo.owner },
    },
  };
}

/** `branches` lists the branches whose head is the commit, which is how an app maps a status to a branch. */
export function statusPayload(repo: FakeRepository, status: CommitStatusRecord) {
  const commit = repo.commitOf(status.sha);
  const json = statusJson(repo, status);
  return {
    id: status.id,
    sha: status.sha,
    name: repo.fullName,
    target_url: status.targetUrl,
    avatar_url: json.avatar_url,
    context: status.context,
    description: status.description,
    state: status.state,
    commit: commitJson(repo, commit),
    branches: repo.branchesAt(status.sha).map((name) => ({
      name,
      commit: { sha: status.sha, url: `${repo.apiUrl}/commits/${status.sha}` },
      protected: repo.settings.protectionOf(name) !== undefined,
    })),
    created_at: status.createdAt,
    updated_at: status.createdAt,
    ...envelope(repo, status.creator),
  };
}

export function checkRunPayload(
  repo: FakeRepository,
  run: CheckRunRecord,
  action: "created" | "completed",
  sender: string,
) {
  // Webhooks carry the whole suite where the REST answer has only its id.
  const check_suite = checkSuiteJson(repo, repo.ci.suite(run.suiteId));
  return { action, check_run: { ...checkRunJson(repo, run), check_suite }, ...envelope(repo, sender) };
}

export function checkSuitePayload(
  repo: FakeRepository,
  suite: CheckSuiteRecord,
  action: "completed",
  sender: string,
) {
  return { action, check_suite: checkSuiteJson(repo, suite), ...envelope(repo, sender) };
}

export type PullRequestPayload = ReturnType<typeof pullRequestPayload>;
export type IssueCommentPayload = ReturnType<typeof issueCommentPayload>;
export type PushPayload = ReturnType<typeof pushPayload>;
export type StatusPayload = ReturnType<typeof statusPayload>;
export type CheckRunPayload = ReturnType<typeof checkRunPayload>;
export type CheckSuitePayload = ReturnType<typeof checkSuitePayload>;
export type AnyWebhookDelivery =
  | WebhookDelivery<"push", PushPayload>
  | WebhookDelivery<"pull_request", PullRequestPayload>
  | WebhookDelivery<"issue_comment", IssueCommentPayload>
  | WebhookDelivery<"status", StatusPayload>
  | WebhookDelivery<"check_run", CheckRunPayload>
  | WebhookDelivery<"check_suite", CheckSuitePayload>;
