import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { FileChanges, Tree } from "../../src/sandbox/fake-github/index.ts";
import {
  applyChanges,
  CommitGraph,
  emptyTree,
  FakeGitHub,
  mergeTrees,
} from "../../src/sandbox/fake-github/index.ts";

const tree = (files: Record<string, string>): Tree => new Map(Object.entries(files));

function graphWithBase(files: FileChanges) {
  const graph = new CommitGraph();
  const base = graph.add({
    parents: [],
    tree: applyChanges(emptyTree, files),
    message: "base",
    author: "a",
    date: "2026-01-01T00:00:00Z",
  });
  const child = (parent: string, changes: FileChanges, message: string) =>
    graph.add({
      parents: [parent],
      tree: applyChanges(graph.get(parent).tree, changes),
      message,
      author: "a",
      date: "2026-01-01T00:00:00Z",
    }).sha;
  return { graph, base: base.sha, child };
}

describe("three-way merge of trees", () => {
  it("takes the side that changed a file", () => {
    const merged = mergeTrees(tree({ a: "1", b: "1" }), tree({ a: "2", b: "1" }), tree({ a: "1", b: "3" }));
    expect(merged).toEqual({ kind: "clean", tree: tree({ a: "2", b: "3" }) });
  });

  it("accepts the same change made on both sides", () => {
    const merged = mergeTrees(tree({ a: "1" }), tree({ a: "2", n: "x" }), tree({ a: "2", n: "x" }));
    expect(merged).toEqual({ kind: "clean", tree: tree({ a: "2", n: "x" }) });
  });

  it("conflicts on different changes to one file, on delete against modify and on different additions", () => {
    const merged = mergeTrees(
      tree({ a: "1", d: "1", ok: "1" }),
      tree({ a: "2", ok: "1", n: "x" }),
      tree({ a: "3", d: "2", ok: "1", n: "y" }),
    );
    expect(merged).toEqual({ kind: "conflict", paths: ["a", "d", "n"] });
  });

  it("deletes a file deleted on one side and untouched on the other", () => {
    expect(mergeTrees(tree({ a: "1", b: "1" }), tree({ b: "1" }), tree({ a: "1", b: "1" }))).toEqual({
      kind: "clean",
      tree: tree({ b: "1" }),
    });
  });
});

describe("the commit graph", () => {
  it("gives the same SHA to the same content, parents, author and message, and 40 hex digits", () => {
    const first = graphWithBase({ a: "1" });
    const second = graphWithBase({ a: "1" });
    expect(first.base).toBe(second.base);
    expect(first.base).toMatch(/^[0-9a-f]{40}$/);
    expect(first.child(first.base, { a: "2" }, "m")).not.toBe(first.child(first.base, { a: "2" }, "other"));
  });

  it("finds the newest common ancestor as the merge base", () => {
    const { graph, base, child } = graphWithBase({ a: "1" });
    const shared = child(base, { b: "1" }, "shared");
    const left = child(shared, { c: "1" }, "left");
    const right = child(shared, { d: "1" }, "right");
    expect(graph.mergeBase(left, right)).toBe(shared);
    expect(graph.mergeBase(left, shared)).toBe(shared);
    expect(graph.isAncestor(base, right)).toBe(true);
    expect(graph.isAncestor(left, right)).toBe(false);
  });

  it("resolves an abbreviated SHA only when it names one commit", () => {
    const { graph, base } = graphWithBase({ a: "1" });
    expect(graph.resolveSha(base.slice(0, 7))?.sha).toBe(base);
    expect(graph.resolveSha(base.slice(0, 6))).toBeUndefined();
  });
});

const paths = ["a", "b", "c", "d", "e", "f"];
const content = fc.constantFrom("x", "y", "z");
const changesOn = (allowed: readonly string[]): fc.Arbitrary<FileChanges> =>
  allowed.length === 0
    ? fc.constant({})
    : fc.dictionary(fc.constantFrom(...allowed), fc.option(content, { nil: null }), {
        maxKeys: allowed.length,
      });

describe("merge properties", () => {
  it("merging changes to disjoint files never conflicts and keeps both", () => {
    const scenario = fc
      .tuple(fc.dictionary(fc.constantFrom(...paths), content), fc.shuffledSubarray(paths))
      .chain(([initial, mine]) => {
        const theirs = paths.filter((path) => !mine.includes(path));
        return fc.tuple(fc.constant(initial), changesOn(mine), changesOn(theirs));
      });
    fc.assert(
      fc.property(scenario, ([initial, ours, others]) => {
        const { graph, base, child } = graphWithBase(initial);
        const merged = graph.mergeCommits(child(base, ours, "ours"), child(base, others, "theirs"));
        expect(merged).toEqual({
          kind: "clean",
          tree: applyChanges(applyChanges(graph.get(base).tree, ours), others),
        });
      }),
    );
  });

  it("is symmetric, and merging a side with an untouched side gives that side", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom(...paths), content),
        changesOn(paths),
        changesOn(paths),
        (b, x, y) => {
          const base = tree(b);
          const ours = applyChanges(base, x);
          const theirs = applyChanges(base, y);
          const forward = mergeTrees(base, ours, theirs);
          const backward = mergeTrees(base, theirs, ours);
          expect(forward).toEqual(backward);
          expect(mergeTrees(base, ours, base)).toEqual({ kind: "clean", tree: ours });
          expect(mergeTrees(base, ours, ours)).toEqual({ kind: "clean", tree: ours });
        },
      ),
    );
  });
});

type Step =
  | { kind: "commit"; branch: number; changes: FileChanges }
  | { kind: "merge"; into: number; from: number }
  | { kind: "fast-forward"; branch: number; to: number };

const branchNames = ["main", "left", "right"];
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant("commit" as const), branch: fc.nat(2), changes: changesOn(paths) }),
  fc.record({ kind: fc.constant("merge" as const), into: fc.nat(2), from: fc.nat(2) }),
  fc.record({ kind: fc.constant("fast-forward" as const), branch: fc.nat(2), to: fc.nat(2) }),
);

describe("histories built through the repository", () => {
  it("a merge contains both heads; a fast-forward only moves to descendants; merge bases are common", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 25 }), (steps) => {
        const repo = new FakeGitHub().createRepository("acme/widgets", { files: { a: "x" } });
        repo.createBranch("left");
        repo.createBranch("right");
        for (const next of steps) {
          if (next.kind === "commit") {
            repo.commit(branchNames[next.branch] as string, next.changes, "change");
            continue;
          }
          const branch = branchNames[next.kind === "merge" ? next.into : next.branch] as string;
          const other = branchNames[next.kind === "merge" ? next.from : next.to] as string;
          const [before, head] = [repo.branch(branch) as string, repo.branch(other) as string];
          const mergeBase = repo.mergeBase(before, head)?.sha as string;
          expect(repo.isAncestor(mergeBase, before) && repo.isAncestor(mergeBase, head)).toBe(true);
          if (next.kind === "merge") {
            try {
              repo.mergeIntoBranch(branch, other, undefined, "app");
            } catch (error) {
              expect(error).toMatchObject({ status: 409, message: "Merge conflict" });
              expect(repo.branch(branch)).toBe(before);
              continue;
            }
            expect(repo.isAncestor(before, branch) && repo.isAncestor(head, branch)).toBe(true);
          } else {
            try {
              repo.updateRef(branch, head, false, "app");
            } catch (error) {
              expect(error).toMatchObject({ status: 422, message: "Update is not a fast forward" });
              expect(repo.isAncestor(before, head)).toBe(false);
              continue;
            }
            expect(repo.isAncestor(before, head)).toBe(true);
            expect(repo.branch(branch)).toBe(head);
          }
        }
      }),
    );
  });
});
