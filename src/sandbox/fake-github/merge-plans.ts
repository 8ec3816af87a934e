// What each merge method of `PUT /pulls/{n}/merge` puts on top of the base branch, planned without touching
// the graph so a mergeability check can use it too.
import type { CommitGraph, Tree } from "./git.ts";
import { emptyTree, mergeTrees } from "./git.ts";

export type MergeMethod = "merge" | "squash" | "rebase";

/** One commit to add on top of the previous one (the base head for the first). */
export interface PlannedCommit {
  readonly tree: Tree;
  readonly message: string;
  readonly author: string;
  /** Parents after the previous commit: the PR head, for a merge commit. */
  readonly otherParents: readonly string[];
}

export type MergePlan =
  | { readonly kind: "clean"; readonly commits: readonly PlannedCommit[] }
  | { readonly kind: "conflict"; readonly paths: readonly string[] };

export interface MergeRequest {
  readonly method: MergeMethod;
  readonly commitTitle?: string;
  readonly commitMessage?: string;
  /** Who merges: the author of a merge commit. */
  readonly merger: string;
}

/** The pull request as a merge sees it. */
export interface MergeSubject {
  readonly number: number;
  readonly title: string;
  readonly author: string;
  readonly headRef: string;
  readonly headSha: string;
  /** The owner of the head repository, for the default merge commit title. */
  readonly headOwner: string;
}

export function planMerge(
  graph: CommitGraph,
  pr: MergeSubject,
  baseSha: string,
  request: MergeRequest,
): MergePlan {
  if (request.method === "rebase") return planRebase(graph, baseSha, pr.headSha);
  const merged = graph.mergeCommits(baseSha, pr.headSha);
  if (merged.kind === "conflict") return merged;
  if (request.method === "merge") {
    const title =
      request.commitTitle ?? `Merge pull request #${pr.number} from ${pr.headOwner}/${pr.headRef}`;
    const message = `${title}\n\n${request.commitMessage ?? pr.title}`;
    return {
      kind: "clean",
      commits: [{ tree: merged.tree, message, author: request.merger, otherParents: [pr.headSha] }],
    };
  }
  const title = request.commitTitle ?? `${pr.title} (#${pr.number})`;
  const body =
    request.commitMessage ??
    graph
      .commitsSince(baseSha, pr.headSha)
      .map((commit) => `* ${commit.message}`)
      .join("\n\n");
  const message = body === "" ? title : `${title}\n\n${body}`;
  return { kind: "clean", commits: [{ tree: merged.tree, message, author: pr.author, otherParents: [] }] };
}

/** Replays each commit of the PR (its change against its first parent) on top of the base, keeping authors. */
function planRebase(graph: CommitGraph, baseSha: string, headSha: string): MergePlan {
  let tree = graph.get(baseSha).tree;
  const commits: PlannedCommit[] = [];
  for (const commit of graph.commitsSince(baseSha, headSha)) {
    const parent = commit.parents[0];
    const replayed = mergeTrees(parent === undefined ? emptyTree : graph.get(parent).tree, tree, commit.tree);
    if (replayed.kind === "conflict") return replayed;
    tree = replayed.tree;
    commits.push({ tree, message: commit.message, author: commit.author, otherParents: [] });
  }
  return { kind: "clean", commits };
}
