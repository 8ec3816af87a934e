// docs/queue.md#direct-merge: the facts deciding a direct merge, read from GitHub for one PR head on one target head. The
// queue core judges them (see src/queue/direct-merge.ts); this only reads.
import type { QueueCommand, QueueEvent } from "../queue/index.ts";
import { classifyGitHubFailure, githubMessage } from "../ports/github-failures.ts";
import type { RepoAddress } from "../ports/github-reads.ts";
import { holdsCommit } from "./commit-ancestry.ts";
import type { GitHubGateway } from "./gateway.ts";

type CheckDirectMerge = Extract<QueueCommand, { type: "check_direct_merge" }>;

/** The PR head holds the target head when nothing of it is behind. */
async function headContainsTarget(github: GitHubGateway, repo: RepoAddress, command: CheckDirectMerge) {
  const octokit = await github.octokit(repo);
  return holdsCommit(octokit, { owner: repo.owner, repo: repo.name }, command.headSha, command.targetSha);
}

/**
 * Reads whether the PR head contains the target head and, when it does, the required statuses (the queue's, else
 * the target branch's, as for a run) and what CI reported on the PR head. A refusal (an unknown commit, a
 * permission) is answered as such, so the PR is tested as usual; GitHub out of reach or rate limited throws, and
 * the command is tried again.
 */
export async function checkDirectMerge(
  github: GitHubGateway,
  repo: RepoAddress,
  command: CheckDirectMerge,
): Promise<QueueEvent> {
  const answer = (facts: Extract<QueueEvent, { type: "direct_merge_checked" }>["facts"]): QueueEvent => ({
    type: "direct_merge_checked",
    prNumber: command.prNumber,
    headSha: command.headSha,
    targetSha: command.targetSha,
    facts,
  });
  try {
    if (!(await headContainsTarget(github, repo, command))) {
      return answer({ kind: "read", containsTarget: false, requiredStatuses: [], reports: [] });
    }
    const requiredStatuses =
      command.requiredStatuses ?? (await github.requiredStatuses(repo, command.targetBranch)).statuses;
    const reports = requiredStatuses.length === 0 ? [] : await github.ciReports(repo, command.headSha);
    return answer({ kind: "read", containsTarget: true, requiredStatuses, reports });
  } catch (error) {
    if (classifyGitHubFailure(error) !== "refused") throw error;
    return answer({ kind: "refused", message: githubMessage(error) });
  }
}
