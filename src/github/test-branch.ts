// Builds a run's test branch on GitHub (contract 5.3): the base commit, then each PR merged in order. GitHub's
// merge API dates a merge commit with the time of the merge, so each merge is then made again as a commit of the
// same tree and parents dated as the queue says: the same merges on the same commit make the same commit in
// every test branch, and the target can fast-forward from one run's tested commit to the next one's.
import type { QueueCommand, QueueEvent, TestBranchMerge } from "../queue/index.ts";
import type { InstallationOctokit } from "./gateway.ts";

type Repo = { owner: string; repo: string };

/** Who the reproducible merge commits are by when GitHub's merge commit does not say. */
const FALLBACK_AUTHOR = { name: "Switchyard", email: "switchyard@users.noreply.github.com" };

const statusOf = (error: unknown) => (error as { status?: number }).status;

/** Reports `test_branch_created` with the branch's head, or `test_branch_conflict` naming the PR that did not merge. */
export async function createTestBranch(
  octokit: InstallationOctokit,
  repo: Repo,
  command: Extract<QueueCommand, { type: "create_test_branch" }>,
): Promise<QueueEvent[]> {
  await startBranch(octokit, repo, command.branch, command.baseSha);
  let head = command.baseSha;
  for (const pr of command.prs) {
    const merged = await mergeReproducibly(octokit, repo, command.branch, head, pr);
    if (merged === "conflict") {
      return [{ type: "test_branch_conflict", runId: command.runId, prNumber: pr.number }];
    }
    head = merged;
  }
  return [{ type: "test_branch_created", runId: command.runId, sha: head }];
}

async function startBranch(octokit: InstallationOctokit, repo: Repo, branch: string, sha: string) {
  try {
    await octokit.rest.git.createRef({ ...repo, ref: `refs/heads/${branch}`, sha });
  } catch (error) {
    if (statusOf(error) !== 422) throw error;
    // The branch is ours (named after the run): a previous attempt made it, so start it over.
    await octokit.rest.git.updateRef({ ...repo, ref: `heads/${branch}`, sha, force: true });
  }
}

/** Merges a PR head into the branch at `head`; answers the branch's new head. */
async function mergeReproducibly(
  octokit: InstallationOctokit,
  repo: Repo,
  branch: string,
  head: string,
  pr: TestBranchMerge,
): Promise<string | "conflict"> {
  const message = `Merge #${pr.number}: ${pr.title}`;
  let merge;
  try {
    merge = await octokit.rest.repos.merge({
      ...repo,
      base: branch,
      head: pr.headSha,
      commit_message: message,
    });
  } catch (error) {
    if (statusOf(error) === 409) return "conflict";
    throw error;
  }
  // 204: the PR's head is already in the branch.
  if (merge.status !== 201) return head;
  const gitHubAuthor = merge.data.commit.author;
  const signature = {
    name: gitHubAuthor?.name ?? FALLBACK_AUTHOR.name,
    email: gitHubAuthor?.email ?? FALLBACK_AUTHOR.email,
    date: new Date(pr.commitDate).toISOString(),
  };
  const { data: commit } = await octokit.rest.git.createCommit({
    ...repo,
    message,
    tree: merge.data.commit.tree.sha,
    parents: merge.data.parents.map((parent) => parent.sha),
    author: signature,
    committer: signature,
  });
  await octokit.rest.git.updateRef({ ...repo, ref: `heads/${branch}`, sha: commit.sha, force: true });
  return commit.sha;
}
