// Reads from GitHub through the app's installation on a repository (Probot's Octokit, authenticated as the
// installation). Everything that asks GitHub a question goes through here or the command executor.
import type { Probot } from "probot";
import type { BranchRule, ProviderMergeability, StatusReport } from "../queue/index.ts";
import type { OpenPullRequest, RepoAddress } from "../ports/github-reads.ts";
import type { InstallationOctokit } from "./octokit.ts";
import { type ResolvedStatuses, resolveRequiredStatuses } from "./required-statuses.ts";
import { checkRunReport, commitStatusReport } from "./check-payloads.ts";
import { readBranchRules } from "./branch-rule-reads.ts";
import { BranchRulesCache } from "./branch-rules-cache.ts";

export class NotInstalledError extends Error {}

/** docs/queue.md#readiness: mergeable true and not dirty, blocked or draft; null while GitHub computes it. */
export function mergeabilityOf(pr: {
  mergeable: boolean | null;
  mergeable_state: string;
}): ProviderMergeability {
  if (pr.mergeable === null) return "in_progress";
  if (!pr.mergeable || ["dirty", "blocked", "draft"].includes(pr.mergeable_state)) return "not_mergeable";
  return "mergeable";
}

export class GitHubGateway {
  /** The targets' rules (see branch-rules-cache.ts); webhooks and refusals make it forget a repository's. */
  readonly rulesCache = new BranchRulesCache();

  constructor(private readonly app: Probot) {}

  async branchRules(
    repo: RepoAddress,
    branch: string,
  ): Promise<{ rules: readonly BranchRule[]; fresh: boolean }> {
    return this.rulesCache.get(repo, branch, async () =>
      readBranchRules(await this.octokit(repo), { owner: repo.owner, repo: repo.name }, branch),
    );
  }

  async octokit(repo: RepoAddress): Promise<InstallationOctokit> {
    if (repo.installationId === null) {
      throw new NotInstalledError(`the GitHub App is not installed on ${repo.owner}/${repo.name}`);
    }
    return (await this.app.auth(repo.installationId)) as InstallationOctokit;
  }

  /** The PR as the queue needs it, or null when it does not exist. */
  async pullRequest(repo: RepoAddress, number: number): Promise<OpenPullRequest | null> {
    const octokit = await this.octokit(repo);
    try {
      const { data } = await octokit.rest.pulls.get({
        owner: repo.owner,
        repo: repo.name,
        pull_number: number,
      });
      return {
        number: data.number,
        title: data.title,
        headSha: data.head.sha,
        baseBranch: data.base.ref,
        author: data.user?.login ?? "ghost",
        mergeability: data.draft ? "not_mergeable" : mergeabilityOf(data),
        open: data.state === "open",
        merged: data.merged,
        draft: data.draft ?? false,
      };
    } catch (error) {
      if ((error as { status?: number }).status === 404) return null;
      throw error;
    }
  }

  /** The branch's head commit, or null when the branch does not exist. */
  async branchHead(repo: RepoAddress, branch: string): Promise<string | null> {
    const octokit = await this.octokit(repo);
    try {
      const { data } = await octokit.rest.git.getRef({
        owner: repo.owner,
        repo: repo.name,
        ref: `heads/${branch}`,
      });
      return data.object.sha;
    } catch (error) {
      if ((error as { status?: number }).status === 404) return null;
      throw error;
    }
  }

  /**
   * The head of a test branch once it holds every one of `commits` (its base and each PR's head); null while the
   * branch does not exist or is not fully built.
   */
  async builtBranchHead(
    repo: RepoAddress,
    branch: string,
    commits: readonly string[],
  ): Promise<string | null> {
    const head = await this.branchHead(repo, branch);
    if (head === null) return null;
    const octokit = await this.octokit(repo);
    for (const sha of commits) {
      try {
        const { data } = await octokit.rest.repos.compareCommitsWithBasehead({
          owner: repo.owner,
          repo: repo.name,
          basehead: `${sha}...${head}`,
          per_page: 1,
        });
        if (data.status !== "ahead" && data.status !== "identical") return null;
      } catch (error) {
        if ((error as { status?: number }).status === 404) return null;
        throw error;
      }
    }
    return head;
  }

  /** The required statuses of a target branch, as a run resolves them (docs/queue.md#required-statuses). */
  async requiredStatuses(repo: RepoAddress, targetBranch: string): Promise<ResolvedStatuses> {
    return resolveRequiredStatuses(await this.octokit(repo), repo.owner, repo.name, targetBranch);
  }

  /** Everything CI reported on a commit: check runs and commit statuses (polling, docs/queue.md#reliability). */
  async ciReports(repo: RepoAddress, sha: string): Promise<StatusReport[]> {
    const octokit = await this.octokit(repo);
    const target = { owner: repo.owner, repo: repo.name, ref: sha, per_page: 100 };
    const checkRuns = await octokit.paginate(octokit.rest.checks.listForRef, target);
    const statuses = await octokit.paginate(octokit.rest.repos.listCommitStatusesForRef, target);
    return [...checkRuns.map(checkRunReport), ...statuses.map(commitStatusReport)];
  }
}
