// The commit model of the fake GitHub: commits hold a whole tree (path → content) and their parents, which is
// all a merge queue needs to ask of git: ancestry, merge bases and three-way merges with real conflicts.
import { createHash } from "node:crypto";

/** path → content; a `null` content deletes the path. */
export type FileChanges = Readonly<Record<string, string | null>>;
export type Tree = ReadonlyMap<string, string>;

export interface Commit {
  readonly sha: string;
  readonly parents: readonly string[];
  readonly tree: Tree;
  readonly treeSha: string;
  readonly message: string;
  /** The login of the author; the committer is the same. */
  readonly author: string;
  readonly date: string;
}

export type TreeMerge =
  | { readonly kind: "clean"; readonly tree: Tree }
  | { readonly kind: "conflict"; readonly paths: readonly string[] };

export const emptyTree: Tree = new Map();

function sha1(text: string): string {
  return createHash("sha1").update(text).digest("hex");
}

/** The blob id git itself would give the content, so `contents` answers carry believable SHAs. */
export function blobSha(content: string): string {
  const bytes = Buffer.from(content, "utf8");
  return createHash("sha1")
    .update(Buffer.concat([Buffer.from(`blob ${bytes.length}\0`), bytes]))
    .digest("hex");
}

export function treeSha(tree: Tree): string {
  const entries = [...tree.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return sha1(`tree\0${entries.map(([path, content]) => `${path}\0${blobSha(content)}`).join("\n")}`);
}

export function applyChanges(tree: Tree, changes: FileChanges): Tree {
  const next = new Map(tree);
  for (const [path, content] of Object.entries(changes)) {
    if (content === null) next.delete(path);
    else next.set(path, content);
  }
  return next;
}

/**
 * Three-way merge, file by file: a side that changed a file wins over a side that did not; both sides
 * making the same change is fine; different changes on both sides (delete against modify included) conflict.
 */
export function mergeTrees(base: Tree, ours: Tree, theirs: Tree): TreeMerge {
  const merged = new Map<string, string>();
  const conflicts: string[] = [];
  const paths = new Set([...base.keys(), ...ours.keys(), ...theirs.keys()]);
  for (const path of [...paths].sort()) {
    const [original, mine, other] = [base.get(path), ours.get(path), theirs.get(path)];
    let result: string | undefined;
    if (mine === other || other === original) result = mine;
    else if (mine === original) result = other;
    else {
      conflicts.push(path);
      continue;
    }
    if (result !== undefined) merged.set(path, result);
  }
  return conflicts.length > 0 ? { kind: "conflict", paths: conflicts } : { kind: "clean", tree: merged };
}

export interface NewCommit {
  readonly parents: readonly string[];
  readonly tree: Tree;
  readonly message: string;
  readonly author: string;
  readonly date: string;
}

export class CommitGraph {
  private readonly commits = new Map<string, Commit>();
  /** Every tree a commit holds, by its SHA (`POST /git/commits` names the tree of a new commit so). */
  private readonly trees = new Map<string, Tree>();
  /** Creation order, which is a topological order: parents exist before their children. */
  private readonly order = new Map<string, number>();

  /**
   * SHAs hash tree, parents, author, date and message, as git's do: the same merge made twice a second apart
   * is two commits. The fake's clock is logical, so a scenario still always yields the same SHAs.
   */
  add(commit: NewCommit): Commit {
    for (const parent of commit.parents) this.get(parent);
    const tree = treeSha(commit.tree);
    const sha = sha1(
      `commit\0${tree}\0${commit.parents.join(",")}\0${commit.author}\0${commit.date}\0${commit.message}`,
    );
    const existing = this.commits.get(sha);
    if (existing) return existing;
    const created: Commit = { ...commit, parents: [...commit.parents], sha, treeSha: tree };
    this.commits.set(sha, created);
    this.trees.set(tree, commit.tree);
    this.order.set(sha, this.order.size);
    return created;
  }

  get(sha: string): Commit {
    const commit = this.commits.get(sha);
    if (!commit) throw new Error(`no commit ${sha}`);
    return commit;
  }

  tree(treeSha: string): Tree | undefined {
    return this.trees.get(treeSha);
  }

  find(sha: string): Commit | undefined {
    return this.commits.get(sha);
  }

  /** A full SHA, or an abbreviation of at least 7 characters that names exactly one commit. */
  resolveSha(shaOrPrefix: string): Commit | undefined {
    if (!/^[0-9a-f]{7,40}$/.test(shaOrPrefix)) return undefined;
    const exact = this.commits.get(shaOrPrefix);
    if (exact) return exact;
    const matches = [...this.commits.keys()].filter((sha) => sha.startsWith(shaOrPrefix));
    return matches.length === 1 ? this.commits.get(matches[0] as string) : undefined;
  }

  /** Every commit reachable from `starts`, themselves included. */
  ancestors(...starts: string[]): Set<string> {
    const seen = new Set<string>();
    const pending = [...starts];
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      if (seen.has(next)) continue;
      seen.add(next);
      pending.push(...this.get(next).parents);
    }
    return seen;
  }

  /** True when `ancestor` is reachable from `descendant` (a commit is its own ancestor, as in git). */
  isAncestor(ancestor: string, descendant: string): boolean {
    return this.ancestors(descendant).has(ancestor);
  }

  /**
   * A best common ancestor: common to both, and not an ancestor of another common one. With criss-cross
   * histories there may be several; git would merge them recursively, the fake takes the newest one, which
   * is enough for the histories a merge queue builds.
   */
  mergeBase(a: string, b: string): string | undefined {
    const fromA = this.ancestors(a);
    const common = [...this.ancestors(b)].filter((sha) => fromA.has(sha));
    const belowCommon = this.ancestors(...common.flatMap((sha) => this.get(sha).parents));
    return this.byCreation(common.filter((sha) => !belowCommon.has(sha))).at(-1);
  }

  /** Commits reachable from `head` and from none of `bases`, oldest first (what a push of `head` adds). */
  reachableOnlyFrom(head: string, ...bases: string[]): Commit[] {
    const known = this.ancestors(...bases);
    return this.byCreation([...this.ancestors(head)].filter((sha) => !known.has(sha))).map((sha) =>
      this.get(sha),
    );
  }

  private byCreation(shas: string[]): string[] {
    return shas.sort((x, y) => (this.order.get(x) ?? 0) - (this.order.get(y) ?? 0));
  }

  /** The tree of merging `theirs` into `ours` on top of their merge base. */
  mergeCommits(ours: string, theirs: string): TreeMerge {
    const base = this.mergeBase(ours, theirs);
    const baseTree = base === undefined ? emptyTree : this.get(base).tree;
    return mergeTrees(baseTree, this.get(ours).tree, this.get(theirs).tree);
  }

  /** The first-parent history of `sha`, newest first, as `git log --first-parent`. */
  firstParentLog(sha: string): Commit[] {
    const log = [this.get(sha)];
    for (let parent = log[0]?.parents[0]; parent !== undefined; parent = log.at(-1)?.parents[0]) {
      log.push(this.get(parent));
    }
    return log;
  }

  /** Commits reachable from `head` but not from `base`, oldest first, along first parents (what a rebase replays). */
  commitsSince(base: string, head: string): Commit[] {
    const known = this.ancestors(base);
    const own: Commit[] = [];
    for (const commit of this.firstParentLog(head)) {
      if (known.has(commit.sha)) break;
      own.push(commit);
    }
    return own.reverse();
  }
}
