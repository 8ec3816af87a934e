// Builds a run's test branch on GitHub (docs/queue.md#testing): the base commit, then each PR merged in order, once the
// run is known to have required statuses. GitHub's merge API dates a merge commit with the time of the merge,
// so each merge is then made again as a commit of the same tree and parents dated as the queue says: the same
// merges on the same commit make the same commit in every test branch, and the target can fast-forward from
// one run's tested commit to the next one's. Where the target requires signed commits, GitHub's own merge
// commits are kept instead: GitHub signs them, and a commit the app makes with a date of its own it would not.
import type { QueueCommand, QueueEvent, TestBranchMerge } from "../queue/index.ts";
import type { InstallationOctokit } from "./octokit.ts";
import { resolveRequiredStatuses } from "./required-statuses.ts";
import { ruleRefusalOf } from "./rule-refusals.ts";

type Repo = { owner: string; repo: string };

/** Where test branches are built, outside any test branch prefix (CI may build everything under that). */
const SCRATCH_PREFIX = "switchyard-build/";

/** Who the reproducible merge commits are by when GitHub's merge commit does not say. */
const FALLBACK_AUTHOR = { name: "Switchyard", email: "switchyard@users.noreply.github.com" };

const statusOf = (error: unknown) => (error as { status?: number }).status;

type CreateTestBranch = Extract<QueueCommand, { type: "create_test_branch" }>;

export interface BuildOptions {
  /** Only commits GitHub signs: its own merge commits, not reproducible ones (the target requires signatures). */
  readonly signedOnly: boolean;
}

/**
 * Reports the required statuses when asked to resolve them, then `test_branch_created` with the branch's head,
 * or `test_branch_conflict` naming the PR that did not merge. With no required statuses nothing is built.
 */
export async function createTestBranch(
  octokit: InstallationOctokit,
  repo: Repo,
  command: CreateTestBranch,
  build: BuildOptions,
): Promise<QueueEvent[]> {
  if (command.resolveRequiredStatusesOf === null)
    return [await buildTestBranch(octokit, repo, command, build)];
  const resolved = await resolveRequiredStatuses(
    octokit,
    repo.owner,
    repo.repo,
    command.resolveRequiredStatusesOf,
  );
  const resolution: QueueEvent = { type: "required_statuses_resolved", runId: command.runId, ...resolved };
  if (resolved.statuses.length === 0) return [resolution];
  return [resolution, await buildTestBranch(octokit, repo, command, build)];
}

/**
 * The merges happen on a scratch branch outside the test branch prefix, so that the test branch is pushed once,
 * at its tested commit: CI that builds test branches never builds GitHub's own merge commits, nor a half-built
 * branch.
 */
async function buildTestBranch(
  octokit: InstallationOctokit,
  repo: Repo,
  command: CreateTestBranch,
  { signedOnly }: BuildOptions,
): Promise<QueueEvent> {
  const scratch = `${SCRATCH_PREFIX}${command.branch}`;
  await pointBranch(octokit, repo, scratch, command.baseSha);
  let head = command.baseSha;
  for (const pr of command.prs) {
    // The scratch branch holds GitHub's merge commit of the previous PR, not the reproducible one, and is left
    // there: both commits have the same tree and parents, so merging the next PR into either makes the same tree
    // (and the same conflicts), and moving the branch would be a write for nothing.
    const merged = await mergeReproducibly(octokit, repo, scratch, head, pr, signedOnly);
    if (merged === "conflict") {
      await deleteBranch(octokit, repo, scratch);
      return { type: "test_branch_conflict", runId: command.runId, prNumber: pr.number };
    }
    head = merged;
  }
  await pointBranch(octokit, repo, command.branch, head);
  await deleteBranch(octokit, repo, scratch);
  return { type: "test_branch_created", runId: command.runId, sha: head };
}

/** Creates the branch at `sha`, or moves it there: it is ours (named after the run), left by an earlier attempt. */
async function pointBranch(octokit: InstallationOctokit, repo: Repo, branch: string, sha: string) {
  try {
    await octokit.rest.git.createRef({ ...repo, ref: `refs/heads/${branch}`, sha });
  } catch (error) {
    if (statusOf(error) !== 422) throw error;
    await octokit.rest.git.updateRef({ ...repo, ref: `heads/${branch}`, sha, force: true });
  }
}

/** "Not found" counts as deleted: the command may run again after a crash. */
export async function deleteBranch(octokit: InstallationOctokit, repo: Repo, branch: string): Promise<void> {
  try {
    await octokit.rest.git.deleteRef({ ...repo, ref: `heads/${branch}` });
  } catch (error) {
    if (statusOf(error) !== 422 && statusOf(error) !== 404) throw error;
  }
}

/**
 * Merges a PR head into the scratch branch, whose head has the tree and parents of `head`: answers the
 * reproducible merge commit (GitHub's own where only signed commits will do).
 */
async function mergeReproducibly(
  octokit: InstallationOctokit,
  repo: Repo,
  scratch: string,
  head: string,
  pr: TestBranchMerge,
  signedOnly: boolean,
): Promise<string | "conflict"> {
  const message = `Merge #${pr.number}: ${pr.title}`;
  let merge;
  try {
    merge = await octokit.rest.repos.merge({
      ...repo,
      base: scratch,
      head: pr.headSha,
      commit_message: message,
    });
  } catch (error) {
    // A 409 in a rule's words is no conflict: it is thrown, and retried, rather than failing the PR.
    if (statusOf(error) === 409 && ruleRefusalOf(error) === null) return "conflict";
    throw error;
  }
  // 204: the PR's head is already in the branch.
  if (merge.status !== 201) return head;
  if (signedOnly) return merge.data.sha;
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
    // GitHub's merge commit is a child of the scratch branch's head; the reproducible one, of `head`.
    parents: [head, ...merge.data.parents.slice(1).map((parent) => parent.sha)],
    author: signature,
    committer: signature,
  });
  return commit.sha;
}
