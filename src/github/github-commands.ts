// Performs the queue's commands on GitHub (refs, merges, statuses, comments), idempotently: each may run
// again after a crash, so "already exists", "already merged" and "not found" on delete count as success.
import type { MergeFailure, QueueCommand, QueueEvent } from "../queue/index.ts";
import type { CommandExecutor } from "../ports/command-executor.ts";
import type { StatusComments } from "../ports/status-comments.ts";
import type { QueueLocation } from "../ports/queue-location.ts";
import { classifyGitHubFailure, githubMessage } from "../ports/github-failures.ts";
import type { GitHubGateway } from "./gateway.ts";
import type { InstallationOctokit } from "./octokit.ts";
import { holdsCommit } from "./commit-ancestry.ts";
import { checkDirectMerge } from "./direct-merge-check.ts";
import { type RuleRefusal, ruleRefusalOf } from "./rule-refusals.ts";
import { createTestBranch, deleteBranch, ScratchMemory, scratchBranchOf } from "./test-branch.ts";

type Command<T extends QueueCommand["type"]> = Extract<QueueCommand, { type: T }>;

const statusOf = (error: unknown) => (error as { status?: number }).status;

export class GitHubCommandExecutor implements CommandExecutor {
  readonly #scratches = new ScratchMemory();

  constructor(
    private readonly github: GitHubGateway,
    private readonly comments: StatusComments,
    /** The PR's place on its queue's page, linked from its commit status and comment. */
    private readonly queuePageOf: (location: QueueLocation, prNumber: number) => string,
  ) {}

  async execute(location: QueueLocation, command: QueueCommand): Promise<QueueEvent[]> {
    const octokit = await this.github.octokit(location);
    const repo = { owner: location.owner, repo: location.name };
    switch (command.type) {
      case "create_test_branch": {
        const known = await this.github.branchRules(location, location.targetBranch);
        const signedOnly = known.rules.some((rule) => rule.type === "required_signatures");
        const built = await createTestBranch(octokit, repo, command, {
          signedOnly,
          scratch: scratchBranchOf(location.queueId),
          scratches: this.#scratches,
        });
        return known.fresh ? [{ type: "branch_rules_read", rules: known.rules }, ...built] : built;
      }
      case "delete_test_branch":
        await deleteBranch(octokit, repo, command.branch);
        return [];
      case "open_test_pull_request":
        await openTestPullRequest(octokit, repo, command);
        return [];
      case "close_test_pull_request":
        await closeTestPullRequests(octokit, repo, command.branch);
        return [];
      case "fast_forward_target":
        return this.#withRulesAfterRefusal(location, await fastForwardTarget(octokit, repo, command));
      case "merge_pull_request":
        return this.#withRulesAfterRefusal(
          location,
          await mergePullRequest(octokit, repo, location.targetBranch, command),
        );
      case "check_direct_merge":
        return [await checkDirectMerge(this.github, location, command)];
      case "set_commit_status":
        await octokit.rest.repos.createCommitStatus({
          ...repo,
          sha: command.sha,
          state: command.state,
          context: command.context,
          description: command.description,
          target_url: this.queuePageOf(location, command.prNumber),
        });
        return [];
      case "upsert_pr_comment":
        await this.#upsertComment(octokit, repo, location.queueId, {
          ...command,
          body: `${command.body}\n\n[See it on the queue's page](${this.queuePageOf(location, command.prNumber)})`,
        });
        return [];
    }
  }

  /**
   * A refusal for a rule means the rules the queue knows are stale: they are read again and told to the queue
   * before the refusal, so the queue judges it by the rules as they are now. Reading them is best effort.
   */
  async #withRulesAfterRefusal(location: QueueLocation, result: QueueEvent): Promise<QueueEvent[]> {
    if (result.type !== "merge_failed" || result.failure.kind !== "rule_refused") return [result];
    this.github.rulesCache.forgetRepository(location);
    try {
      const { rules } = await this.github.branchRules(location, location.targetBranch);
      return [{ type: "branch_rules_read", rules }, result];
    } catch {
      return [result];
    }
  }

  /**
   * One comment per submission, edited in place (docs/queue.md#what-the-pr-shows) except for routine progress;
   * re-posted only if someone deleted it.
   */
  async #upsertComment(
    octokit: InstallationOctokit,
    repo: { owner: string; repo: string },
    queueId: string,
    command: Command<"upsert_pr_comment">,
  ): Promise<void> {
    const known = await this.comments.findCommentId(command.submissionId);
    if (known !== undefined && command.progress) return;
    // Commands saved before `editOnly` existed lack it: they post as they did.
    if (known === undefined && command.editOnly === true) return;
    if (known !== undefined) {
      try {
        await octokit.rest.issues.updateComment({ ...repo, comment_id: known, body: command.body });
        return;
      } catch (error) {
        if (statusOf(error) !== 404) throw error;
        // Deleted by someone: the end of a course with no news is not worth a new comment.
        if (command.editOnly === true) return;
      }
    }
    const { data } = await octokit.rest.issues.createComment({
      ...repo,
      issue_number: command.prNumber,
      body: command.body,
    });
    await this.comments.rememberComment({ submissionId: command.submissionId, queueId, commentId: data.id });
  }
}

type Repo = { owner: string; repo: string };

async function openTestPullRequest(
  octokit: InstallationOctokit,
  repo: Repo,
  command: Command<"open_test_pull_request">,
): Promise<void> {
  try {
    await octokit.rest.pulls.create({
      ...repo,
      head: command.branch,
      base: command.targetBranch,
      title: command.title,
      body: command.body,
      draft: true,
    });
  } catch (error) {
    // 422: a pull request for this branch already exists.
    if (statusOf(error) !== 422) throw error;
  }
}

async function closeTestPullRequests(
  octokit: InstallationOctokit,
  repo: Repo,
  branch: string,
): Promise<void> {
  const open = await octokit.rest.pulls.list({ ...repo, head: `${repo.owner}:${branch}`, state: "open" });
  for (const pr of open.data) {
    await octokit.rest.pulls.update({ ...repo, pull_number: pr.number, state: "closed" });
  }
}

async function targetHead(octokit: InstallationOctokit, repo: Repo, branch: string): Promise<string> {
  const { data } = await octokit.rest.git.getRef({ ...repo, ref: `heads/${branch}` });
  return data.object.sha;
}

/** merge_commit (docs/queue.md#merging): the target branch moves to the tested commit itself, never by force. */
async function fastForwardTarget(
  octokit: InstallationOctokit,
  repo: Repo,
  command: Command<"fast_forward_target">,
): Promise<QueueEvent> {
  const firstPr = command.prNumbers[0] ?? 0;
  const head = await targetHead(octokit, repo, command.targetBranch);
  if (head === command.sha) return { type: "merge_succeeded", mergeId: command.mergeId, sha: head };
  // A retry whose first attempt moved the branch, its answer lost, and someone pushed on top since: it merged.
  if (head !== command.expectedHeadSha && (await holdsCommit(octokit, repo, head, command.sha))) {
    return { type: "merge_succeeded", mergeId: command.mergeId, sha: command.sha };
  }
  if (head !== command.expectedHeadSha) {
    return {
      type: "merge_failed",
      mergeId: command.mergeId,
      prNumber: firstPr,
      failure: { kind: "target_moved", headSha: head },
    };
  }
  try {
    await octokit.rest.git.updateRef({
      ...repo,
      ref: `heads/${command.targetBranch}`,
      sha: command.sha,
      force: false,
    });
    return { type: "merge_succeeded", mergeId: command.mergeId, sha: command.sha };
  } catch (error) {
    if (classifyGitHubFailure(error) !== "refused") throw error;
    const refusal = ruleRefusalOf(error);
    if (refusal === null && statusOf(error) !== 422) {
      if (statusOf(error) === 403 || statusOf(error) === 404) {
        return {
          type: "merge_failed",
          mergeId: command.mergeId,
          prNumber: firstPr,
          failure: { kind: "rejected", message: githubMessage(error) },
        };
      }
      throw error;
    }
    // The target moved between our read and the update, or GitHub refuses the change itself for a rule: its
    // head tells them apart. Not a fast-forward on an unmoved head: the tested commit does not descend from
    // it (a run built from commits GitHub signed, see test-branch.ts), and its PRs must be tested on it again.
    const now = await targetHead(octokit, repo, command.targetBranch);
    const failure: MergeFailure =
      refusal !== null && now === command.expectedHeadSha
        ? {
            kind: "rule_refused",
            ...refusal,
            ...(await ownUnsignedCommit(octokit, repo, command.sha, refusal)),
          }
        : { kind: "target_moved", headSha: now };
    return { type: "merge_failed", mergeId: command.mergeId, prNumber: firstPr, failure };
  }
}

/**
 * A refusal for signatures of the tested commit itself, which the queue made: built before the queue knew the
 * rule, it is built again from commits GitHub signs. A PR's own unsigned commits leave it verified, and fail it.
 */
async function ownUnsignedCommit(
  octokit: InstallationOctokit,
  repo: Repo,
  sha: string,
  refusal: RuleRefusal,
): Promise<{ retest?: true }> {
  if (refusal.rule !== "required_signatures") return {};
  const { data } = await octokit.rest.repos.getCommit({ ...repo, ref: sha, per_page: 1 });
  return data.commit.verification?.verified === false ? { retest: true } : {};
}

/** squash / rebase (docs/queue.md#merging): GitHub's merge API, only for the tested head on the expected target. */
async function mergePullRequest(
  octokit: InstallationOctokit,
  repo: Repo,
  targetBranch: string,
  command: Command<"merge_pull_request">,
): Promise<QueueEvent> {
  const failed = (failure: Extract<QueueEvent, { type: "merge_failed" }>["failure"]): QueueEvent => ({
    type: "merge_failed",
    mergeId: command.mergeId,
    prNumber: command.prNumber,
    failure,
  });
  const { data: pr } = await octokit.rest.pulls.get({ ...repo, pull_number: command.prNumber });
  if (pr.merged) {
    // Merged by the app: a previous attempt of this command got through before the service recorded it.
    if (pr.merged_by?.type === "Bot") {
      return {
        type: "merge_succeeded",
        mergeId: command.mergeId,
        sha: await targetHead(octokit, repo, targetBranch),
      };
    }
    return failed({ kind: "rejected", message: `#${command.prNumber} was merged outside the queue` });
  }
  if (pr.head.sha !== command.headSha) return failed({ kind: "pr_head_moved" });
  const head = await targetHead(octokit, repo, targetBranch);
  if (head !== command.expectedTargetSha) return failed({ kind: "target_moved", headSha: head });
  try {
    const { data } = await octokit.rest.pulls.merge({
      ...repo,
      pull_number: command.prNumber,
      merge_method: command.method,
      sha: command.headSha,
      commit_title: command.commitTitle,
    });
    return { type: "merge_succeeded", mergeId: command.mergeId, sha: data.sha };
  } catch (error) {
    // Facts about the PR, stated once: asking again would get the same answer. A rate limit is no fact.
    if (classifyGitHubFailure(error) !== "refused") throw error;
    const refusal = ruleRefusalOf(error);
    if (refusal !== null) {
      const now = await targetHead(octokit, repo, targetBranch);
      return failed(
        now === command.expectedTargetSha
          ? { kind: "rule_refused", ...refusal }
          : { kind: "target_moved", headSha: now },
      );
    }
    if (statusOf(error) === 409) return failed({ kind: "pr_head_moved" });
    if (statusOf(error) === 405 || statusOf(error) === 422 || statusOf(error) === 403) {
      return failed({ kind: "rejected", message: githubMessage(error) });
    }
    throw error;
  }
}
