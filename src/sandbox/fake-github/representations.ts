// GitHub's JSON shapes, shared by REST answers and webhook payloads (GitHub uses the same objects in both).
// Fields follow the REST schemas; the ones no merge queue reads are left out rather than invented.
import type { CheckRunRecord, CheckSuiteRecord, CommitStatusRecord } from "./check-results.ts";
import type { CommentRecord, ReactionRecord } from "./conversation.ts";
import type { Commit } from "./git.ts";
import type { Mergeability, PullRequestRecord } from "./pull-requests.ts";
import type { FakeRepository } from "./fake-repository.ts";
import type { World } from "./world.ts";

export function accountJson(world: World, login: string, type?: "User" | "Organization" | "Bot") {
  const id = world.idFor(`account:${login}`);
  const bot = login.endsWith("[bot]");
  return {
    login,
    id,
    node_id: `U_${id}`,
    avatar_url: `https://avatars.githubusercontent.com/u/${id}?v=4`,
    gravatar_id: "",
    url: `${world.apiUrl}/users/${encodeURIComponent(login)}`,
    html_url: bot ? `${world.webUrl}/apps/${login.slice(0, -"[bot]".length)}` : `${world.webUrl}/${login}`,
    type: type ?? (bot ? "Bot" : "User"),
    site_admin: false,
  };
}

export function appJson(world: World, slug: string) {
  const id = world.idFor(`app:${slug}`);
  return {
    id,
    slug,
    node_id: `A_${id}`,
    name: slug,
    owner: accountJson(world, slug, "Organization"),
    description: null,
    external_url: `${world.webUrl}/apps/${slug}`,
    html_url: `${world.webUrl}/apps/${slug}`,
    created_at: "2020-01-01T00:00:00Z",
    updated_at: "2020-01-01T00:00:00Z",
    permissions: {},
    events: [],
  };
}

export function repositoryJson(repo: FakeRepository) {
  return {
    id: repo.id,
    node_id: `R_${repo.id}`,
    name: repo.name,
    full_name: repo.fullName,
    private: repo.isPrivate,
    visibility: repo.isPrivate ? "private" : "public",
    owner: accountJson(repo.world, repo.owner, repo.ownerType),
    html_url: repo.htmlUrl,
    description: null,
    fork: false,
    url: repo.apiUrl,
    default_branch: repo.defaultBranch,
    archived: false,
    disabled: false,
    allow_merge_commit: true,
    allow_squash_merge: true,
    allow_rebase_merge: true,
  };
}

export function installationJson(repo: FakeRepository) {
  const id = repo.installationId;
  return id === undefined ? undefined : { id, node_id: `I_${id}` };
}

function signature(commit: Commit) {
  return { name: commit.author, email: `${commit.author}@users.noreply.github.com`, date: commit.date };
}

const unsigned = { verified: false, reason: "unsigned", signature: null, payload: null, verified_at: null };

/** GitHub's web-flow signature on what it made; see rule-enforcement.ts for which commits those are. */
function verificationOf(repo: FakeRepository, commit: Commit) {
  if (!repo.rules.isVerified(commit.sha)) return unsigned;
  return { verified: true, reason: "valid", signature: null, payload: null, verified_at: commit.date };
}

function parentsJson(repo: FakeRepository, commit: Commit) {
  return commit.parents.map((sha) => ({
    sha,
    url: `${repo.apiUrl}/commits/${sha}`,
    html_url: `${repo.htmlUrl}/commit/${sha}`,
  }));
}

/** The `commit` schema of `GET /commits/{ref}` and `POST /merges`. */
export function commitJson(repo: FakeRepository, commit: Commit) {
  return {
    sha: commit.sha,
    node_id: `C_${commit.sha}`,
    url: `${repo.apiUrl}/commits/${commit.sha}`,
    html_url: `${repo.htmlUrl}/commit/${commit.sha}`,
    comments_url: `${repo.apiUrl}/commits/${commit.sha}/comments`,
    commit: {
      author: signature(commit),
      committer: signature(commit),
      message: commit.message,
      tree: { sha: commit.treeSha, url: `${repo.apiUrl}/git/trees/${commit.treeSha}` },
      url: `${repo.apiUrl}/git/commits/${commit.sha}`,
      comment_count: 0,
      verification: verificationOf(repo, commit),
    },
    author: accountJson(repo.world, commit.author),
    committer: accountJson(repo.world, commit.author),
    parents: parentsJson(repo, commit),
  };
}

/** The `git-commit` schema of `GET /git/commits/{sha}`. */
export function gitCommitJson(repo: FakeRepository, commit: Commit) {
  return {
    sha: commit.sha,
    node_id: `C_${commit.sha}`,
    url: `${repo.apiUrl}/git/commits/${commit.sha}`,
    html_url: `${repo.htmlUrl}/commit/${commit.sha}`,
    author: signature(commit),
    committer: signature(commit),
    message: commit.message,
    tree: { sha: commit.treeSha, url: `${repo.apiUrl}/git/trees/${commit.treeSha}` },
    parents: parentsJson(repo, commit),
    verification: verificationOf(repo, commit),
  };
}

export function refJson(repo: FakeRepository, branch: string, sha: string) {
  return {
    ref: `refs/heads/${branch}`,
    node_id: `REF_${branch}`,
    url: `${repo.apiUrl}/git/refs/heads/${branch}`,
    object: { type: "commit", sha, url: `${repo.apiUrl}/git/commits/${sha}` },
  };
}

function branchSideJson(repo: FakeRepository, ref: string, sha: string) {
  return {
    label: `${repo.owner}:${ref}`,
    ref,
    sha,
    user: accountJson(repo.world, repo.owner, repo.ownerType),
    repo: repositoryJson(repo),
  };
}

function authorAssociation(repo: FakeRepository, login: string): string {
  if (login === repo.owner) return "OWNER";
  const role = repo.settings.roleOf(login, true);
  return role === "none" || role === "read" ? "CONTRIBUTOR" : "COLLABORATOR";
}

/** The `pull-request-simple` schema of list answers: no merge state, as GitHub does not compute it there. */
export function pullRequestSimpleJson(repo: FakeRepository, pr: PullRequestRecord) {
  const url = `${repo.apiUrl}/pulls/${pr.number}`;
  const htmlUrl = `${repo.htmlUrl}/pull/${pr.number}`;
  return {
    url,
    id: pr.id,
    node_id: `PR_${pr.id}`,
    html_url: htmlUrl,
    diff_url: `${htmlUrl}.diff`,
    patch_url: `${htmlUrl}.patch`,
    issue_url: `${repo.apiUrl}/issues/${pr.number}`,
    commits_url: `${url}/commits`,
    statuses_url: `${repo.apiUrl}/statuses/${pr.headSha}`,
    number: pr.number,
    state: pr.state,
    locked: false,
    title: pr.title,
    user: accountJson(repo.world, pr.author),
    body: pr.body,
    labels: [],
    milestone: null,
    created_at: pr.createdAt,
    updated_at: pr.updatedAt,
    closed_at: pr.closedAt,
    merged_at: pr.mergedAt,
    merge_commit_sha: pr.mergeCommitSha,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    requested_teams: [],
    draft: pr.draft,
    head: branchSideJson(repo, pr.headRef, pr.headSha),
    base: branchSideJson(repo, pr.baseRef, pr.baseSha),
    author_association: authorAssociation(repo, pr.author),
    auto_merge: null,
    active_lock_reason: null,
  };
}

/** The full `pull-request` schema of `GET /pulls/{n}` and webhooks, with the mergeability given. */
export function pullRequestJson(repo: FakeRepository, pr: PullRequestRecord, mergeability: Mergeability) {
  const { mergeable, mergeableState, rebaseable } = mergeability;
  return {
    ...pullRequestSimpleJson(repo, pr),
    merged: pr.merged,
    mergeable,
    rebaseable,
    mergeable_state: mergeableState,
    merged_by: pr.mergedBy === null ? null : accountJson(repo.world, pr.mergedBy),
    comments: repo.conversation.commentsOn(pr.number).length,
    review_comments: 0,
    maintainer_can_modify: false,
    commits: repo.pulls.commitsOf(pr).length,
  };
}

/** The short pull request of check runs and check suites: only PRs whose head is the checked commit. */
export function checkPullRequestsJson(repo: FakeRepository, sha: string) {
  const short = { id: repo.id, url: repo.apiUrl, name: repo.name };
  return repo.pulls.withOpenHead(sha).map((pr) => ({
    url: `${repo.apiUrl}/pulls/${pr.number}`,
    id: pr.id,
    number: pr.number,
    head: { ref: pr.headRef, sha: pr.headSha, repo: short },
    base: { ref: pr.baseRef, sha: pr.baseSha, repo: short },
  }));
}

export function statusJson(repo: FakeRepository, status: CommitStatusRecord) {
  const creator = accountJson(repo.world, status.creator);
  return {
    url: `${repo.apiUrl}/statuses/${status.sha}`,
    avatar_url: creator.avatar_url,
    id: status.id,
    node_id: `SC_${status.id}`,
    state: status.state,
    description: status.description,
    target_url: status.targetUrl,
    context: status.context,
    created_at: status.createdAt,
    updated_at: status.createdAt,
    creator,
  };
}

export function checkRunJson(repo: FakeRepository, run: CheckRunRecord) {
  return {
    id: run.id,
    node_id: `CR_${run.id}`,
    head_sha: run.headSha,
    external_id: "",
    url: `${repo.apiUrl}/check-runs/${run.id}`,
    html_url: `${repo.htmlUrl}/runs/${run.id}`,
    details_url: run.detailsUrl ?? `${repo.htmlUrl}/runs/${run.id}`,
    status: run.status,
    conclusion: run.conclusion,
    started_at: run.startedAt,
    completed_at: run.completedAt,
    output: {
      title: null,
      summary: null,
      text: null,
      annotations_count: 0,
      annotations_url: `${repo.apiUrl}/check-runs/${run.id}/annotations`,
    },
    name: run.name,
    check_suite: { id: run.suiteId },
    app: appJson(repo.world, run.app),
    pull_requests: checkPullRequestsJson(repo, run.headSha),
  };
}

export function checkSuiteJson(repo: FakeRepository, suite: CheckSuiteRecord) {
  const head = repo.commitOf(suite.headSha);
  return {
    id: suite.id,
    node_id: `CS_${suite.id}`,
    head_branch: suite.headBranch,
    head_sha: suite.headSha,
    status: repo.ci.suiteStatus(suite),
    conclusion: repo.ci.suiteConclusion(suite),
    url: `${repo.apiUrl}/check-suites/${suite.id}`,
    before: head.parents[0] ?? null,
    after: suite.headSha,
    pull_requests: checkPullRequestsJson(repo, suite.headSha),
    app: appJson(repo.world, suite.app),
    created_at: suite.createdAt,
    updated_at: suite.createdAt,
    latest_check_runs_count: repo.ci.runsOfSuite(suite).length,
    check_runs_url: `${repo.apiUrl}/check-suites/${suite.id}/check-runs`,
    head_commit: {
      id: head.sha,
      tree_id: head.treeSha,
      message: head.message,
      timestamp: head.date,
      author: { name: head.author, email: `${head.author}@users.noreply.github.com` },
      committer: { name: head.author, email: `${head.author}@users.noreply.github.com` },
    },
  };
}

export function commentJson(repo: FakeRepository, comment: CommentRecord) {
  return {
    id: comment.id,
    node_id: `IC_${comment.id}`,
    url: `${repo.apiUrl}/issues/comments/${comment.id}`,
    html_url: `${repo.htmlUrl}/pull/${comment.issueNumber}#issuecomment-${comment.id}`,
    issue_url: `${repo.apiUrl}/issues/${comment.issueNumber}`,
    body: comment.body,
    user: accountJson(repo.world, comment.author),
    created_at: comment.createdAt,
    updated_at: comment.updatedAt,
    author_association: authorAssociation(repo, comment.author),
    performed_via_github_app: null,
  };
}

export function reactionJson(repo: FakeRepository, reaction: ReactionRecord) {
  return {
    id: reaction.id,
    node_id: `REA_${reaction.id}`,
    user: accountJson(repo.world, reaction.user),
    content: reaction.content,
    created_at: reaction.createdAt,
  };
}

/** A pull request seen as an issue, as in `issue_comment` payloads: `pull_request` marks it as a PR. */
export function pullRequestIssueJson(repo: FakeRepository, pr: PullRequestRecord) {
  const simple = pullRequestSimpleJson(repo, pr);
  return {
    url: simple.issue_url,
    repository_url: repo.apiUrl,
    html_url: simple.html_url,
    id: pr.id,
    node_id: `I_${pr.id}`,
    number: pr.number,
    title: pr.title,
    user: simple.user,
    labels: [],
    state: pr.state,
    locked: false,
    assignee: null,
    assignees: [],
    comments: repo.conversation.commentsOn(pr.number).length,
    created_at: pr.createdAt,
    updated_at: pr.updatedAt,
    closed_at: pr.closedAt,
    author_association: simple.author_association,
    draft: pr.draft,
    body: pr.body,
    pull_request: {
      url: simple.url,
      html_url: simple.html_url,
      diff_url: simple.diff_url,
      patch_url: simple.patch_url,
      merged_at: pr.mergedAt,
    },
  };
}
