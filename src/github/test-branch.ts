// Builds a run's test branch on GitHub (docs/queue.md#testing): the base commit, then each PR merged in order, once the
// run is known to have required statuses. Where a tested commit may land as it is (merge_commit), GitHub's merge
// commit, dated with the time of the merge, is made again as a commit of the same tree and parents dated as the
// queue says: the same merges on the same commit make the same commit in every test branch, and the target can
// fast-forward from one run's tested commit to the next one's. With squash and rebase no tested commit lands, and
// GitHub's own merge commits are kept (one write per PR instead of two); so they are where the target requires
// signed commits: GitHub signs them, and a commit the app makes with a date of its own it would not.
import type { QueueCommand, QueueEvent, TestBranchMerge } from "../queue/index.ts";
import type { InstallationOctokit } from "./octokit.ts";
import { resolveRequiredStatuses } from "./required-statuses.ts";
import { ruleRefusalOf } from "./rule-refusals.ts";

type Repo = { owner: string; repo: string };

/**
 * Where a queue's test branches are built: one branch per queue, outside any test branch prefix (CI may build
 * everything under that), kept between builds and moved only when it holds nothing the next build can merge onto.
 */
export const scratchBranchOf = (queueId: string) => `switchyard-build/${queueId}`;

/** Who the reproducible merge commits are by when GitHub's merge commit does not say. */
const FALLBACK_AUTHOR = { name: "Switchyard", email: "switchyard@users.noreply.github.com" };

const statusOf = (error: unknown) => (error as { status?: number }).status;

type CreateTestBranch = Extract<QueueCommand, { type: "create_test_branch" }>;

export interface BuildOptions {
  /** Only commits GitHub signs: its own merge commits, not reproducible ones (the target requires signatures). */
  readonly signedOnly: boolean;
  /** The queue's scratch branch (scratchBranchOf). */
  readonly scratch: string;
  /** What the scratch branches were left holding by the builds of this process. */
  readonly scratches: ScratchMemory;
}

/**
 * The commit each scratch branch was left at, and the head it stands for: GitHub's merge commit of a build's last
 * PR has the tree of the reproducible commit made again from it and the same commits behind it but for the merge
 * commits themselves, so merging a PR into either makes the same tree (and the same conflicts). A build on that
 * head then needs no write to move the scratch branch. Kept in memory: after a restart the branch is moved once.
 */
export class ScratchMemory {
  readonly #left = new Map<string, { readonly at: string; readonly standsFor: string }>();

  standsFor(scratch: string, at: string): string | undefined {
    const left = this.#left.get(scratch);
    return left?.at === at ? left.standsFor : undefined;
  }

  leave(scratch: string, at: string, standsFor: string): void {
    this.#left.set(scratch, { at, standsFor });
  }
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
 * The merges happen on the queue's scratch branch outside the test branch prefix, so that the test branch is pushed
 * once, at its tested commit: CI that builds test branches never builds GitHub's own merge commits, nor a
 * half-built branch.
 */
async function buildTestBranch(
  octokit: InstallationOctokit,
  repo: Repo,
  command: CreateTestBranch,
  options: BuildOptions,
): Promise<QueueEvent> {
  const { scratch, scratches } = options;
  // Commands saved before `reproducible` existed were all built reproducibly.
  const reproducible = command.reproducible !== false && !options.signedOnly;
  const key = `${repo.owner}/${repo.repo}:${scratch}`;
  let scratchHead = await scratchOn(octokit, repo, scratch, command.baseSha, (at) =>
    scratches.standsFor(key, at),
  );
  let head = command.baseSha;
  for (const pr of command.prs) {
    const merged = await mergeInto(octokit, repo, scratch, scratchHead, pr);
    if (merged === "conflict") {
      scratches.leave(key, scratchHead, head);
      return { type: "test_branch_conflict", runId: command.runId, prNumber: pr.number };
    }
    if (merged === "contained") continue;
    scratchHead = merged.sha;
    head = reproducible ? await remakeReproducibly(octokit, repo, merged, head, pr) : merged.sha;
  }
  scratches.leave(key, scratchHead, head);
  await pointBranch(octokit, repo, command.branch, head);
  return { type: "test_branch_created", runId: command.runId, sha: head };
}

/**
 * Makes the scratch branch hold `base` or a commit that stands for it, moving or creating it only when it does
 * not; answers the commit it holds.
 */
async function scratchOn(
  octokit: InstallationOctokit,
  repo: Repo,
  scratch: string,
  base: string,
  standsFor: (at: string) => string | undefined,
): Promise<string> {
  let at: string | undefined;
  try {
    at = (await octokit.rest.git.getRef({ ...repo, ref: `heads/${scratch}` })).data.object.sha;
  } catch (error) {
    if (statusOf(error) !== 404) throw error;
  }
  if (at === base || (at !== undefined && standsFor(at) === base)) return at;
  await pointBranch(octokit, repo, scratch, base);
  return base;
}

/** Creates the branch at `sha`, or moves it there: it is ours, left by an earlier build or attempt. */
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

type GitHubMerge = {
  sha: string;
  tree: string;
  author: { name?: string; email?: string } | null;
  parents: string[];
};

/**
 * Merges a PR head into the scratch branch, which holds `scratchHead`: GitHub's merge commit, "contained" when the
 * PR's head is in the branch already, or "conflict".
 */
async function mergeInto(
  octokit: InstallationOctokit,
  repo: Repo,
  scratch: string,
  scratchHead: string,
  pr: TestBranchMerge,
): Promise<GitHubMerge | "contained" | "conflict"> {
  let merge;
  try {
    merge = await octokit.rest.repos.merge({
      ...repo,
      base: scratch,
      head: pr.headSha,
      commit_message: mergeMessage(pr),
    });
  } catch (error) {
    // A 409 in a rule's words is no conflict: it is thrown, and retried, rather than failing the PR.
    if (statusOf(error) !== 409 || ruleRefusalOf(error) !== null) throw error;
    // A conflict with what another build left there is none of the PR's.
    const { data } = await octokit.rest.git.getRef({ ...repo, ref: `heads/${scratch}` });
    if (data.object.sha !== scratchHead) throw movedUnder(scratch);
    return "conflict";
  }
  // 204: the PR's head is already in the branch.
  if (merge.status !== 201) return "contained";
  const parents = merge.data.parents.map((parent) => parent.sha);
  if (parents[0] !== scratchHead) throw movedUnder(scratch);
  return { sha: merge.data.sha, tree: merge.data.commit.tree.sha, author: merge.data.commit.author, parents };
}

/**
 * Another build moved the shared scratch branch under this one (a claim that lapsed while its holder still ran was
 * taken over): the merge was not made on this build's commit. Thrown, and the command is tried again.
 */
const movedUnder = (scratch: string) => new Error(`${scratch} moved while a test branch was built on it`);

const mergeMessage = (pr: TestBranchMerge) => `Merge #${pr.number}: ${pr.title}`;

/** GitHub's merge commit made again as the reproducible one: the same tree, a child of `head`, dated as the queue says. */
async function remakeReproducibly(
  octokit: InstallationOctokit,
  repo: Repo,
  merge: GitHubMerge,
  head: string,
  pr: TestBranchMerge,
): Promise<string> {
  const signature = {
    name: merge.author?.name ?? FALLBACK_AUTHOR.name,
    email: merge.author?.email ?? FALLBACK_AUTHOR.email,
    date: new Date(pr.commitDate).toISOString(),
  };
  const { data: commit } = await octokit.rest.git.createCommit({
    ...repo,
    message: mergeMessage(pr),
    tree: merge.tree,
    // GitHub's merge commit is a child of the scratch branch's head; the reproducible one, of `head`.
    parents: [head, ...merge.parents.slice(1)],
    author: signature,
    committer: signature,
  });
  return commit.sha;
}
