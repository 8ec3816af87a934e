import { beforeEach, describe, expect, it } from "vitest";
import type { FakeRepository } from "../../src/sandbox/fake-github/index.ts";
import { FakeGitHub, fakeOctokit } from "../../src/sandbox/fake-github/index.ts";

const repoParams = { owner: "acme", repo: "widgets" };

let fake: FakeGitHub;
let repo: FakeRepository;
let octokit: ReturnType<typeof fakeOctokit>;

beforeEach(() => {
  fake = new FakeGitHub();
  repo = fake.createRepository("acme/widgets", { files: { "README.md": "hi" }, installationId: 1 });
  octokit = fakeOctokit(fake);
});

describe("git refs", () => {
  it("reads a branch by either ref route, with slashes encoded or not", async () => {
    const sha = repo.createBranch("mq/main/q1-3");

    const single = await octokit.rest.git.getRef({ ...repoParams, ref: "heads/mq/main/q1-3" });
    const plural = await octokit.request("GET /repos/acme/widgets/git/refs/heads/mq/main/q1-3");

    expect(single.data).toMatchObject({ ref: "refs/heads/mq/main/q1-3", object: { type: "commit", sha } });
    expect(plural.data).toEqual(single.data);
    expect(fake.calls()).toEqual([
      "GET /repos/acme/widgets/git/ref/heads/mq/main/q1-3",
      "GET /repos/acme/widgets/git/refs/heads/mq/main/q1-3",
    ]);
  });

  it("answers 404 for a missing branch, and a list where the plural route only matches a prefix", async () => {
    repo.createBranch("mq/main/1");
    repo.createBranch("mq/main/2");

    await expect(octokit.rest.git.getRef({ ...repoParams, ref: "heads/mq/main" })).rejects.toMatchObject({
      status: 404,
      response: { data: { message: "Not Found" } },
    });
    const prefix = await octokit.request("GET /repos/acme/widgets/git/refs/heads/mq/main");
    const matching = await octokit.rest.git.listMatchingRefs({ ...repoParams, ref: "heads/mq/" });

    expect((prefix.data as any[]).map((ref) => ref.ref)).toEqual([
      "refs/heads/mq/main/1",
      "refs/heads/mq/main/2",
    ]);
    expect(matching.data.map((ref) => ref.ref)).toEqual(["refs/heads/mq/main/1", "refs/heads/mq/main/2"]);
  });

  it("creates a branch (201), and refuses one that exists or a commit that does not (422)", async () => {
    const main = repo.branch("main") as string;

    const created = await octokit.rest.git.createRef({
      ...repoParams,
      ref: "refs/heads/mq/main/1",
      sha: main,
    });

    expect(created.status).toBe(201);
    expect(created.data.ref).toBe("refs/heads/mq/main/1");
    expect(repo.branch("mq/main/1")).toBe(main);
    await expect(
      octokit.rest.git.createRef({ ...repoParams, ref: "refs/heads/mq/main/1", sha: main }),
    ).rejects.toMatchObject({ status: 422, response: { data: { message: "Reference already exists" } } });
    await expect(
      octokit.rest.git.createRef({ ...repoParams, ref: "refs/heads/x", sha: "f".repeat(40) }),
    ).rejects.toMatchObject({ status: 422, response: { data: { message: "Object does not exist" } } });
  });

  it("fast-forwards a branch, refuses a non-fast-forward unless forced", async () => {
    const base = repo.branch("main") as string;
    const ahead = repo.commit("main", { a: "1" }, "ahead");
    repo.createBranch("side", base);
    const diverged = repo.commit("side", { b: "1" }, "diverged");
    repo.createBranch("test", base);

    await octokit.rest.git.updateRef({ ...repoParams, ref: "heads/test", sha: ahead });
    expect(repo.branch("test")).toBe(ahead);

    await expect(
      octokit.rest.git.updateRef({ ...repoParams, ref: "heads/test", sha: diverged }),
    ).rejects.toMatchObject({ status: 422, response: { data: { message: "Update is not a fast forward" } } });
    expect(repo.branch("test")).toBe(ahead);

    await octokit.rest.git.updateRef({ ...repoParams, ref: "heads/test", sha: diverged, force: true });
    expect(repo.branch("test")).toBe(diverged);
  });

  it("refuses to update or delete a branch that does not exist", async () => {
    const main = repo.branch("main") as string;
    const missing = { status: 422, response: { data: { message: "Reference does not exist" } } };

    await expect(
      octokit.rest.git.updateRef({ ...repoParams, ref: "heads/nope", sha: main }),
    ).rejects.toMatchObject(missing);
    await expect(octokit.rest.git.deleteRef({ ...repoParams, ref: "heads/nope" })).rejects.toMatchObject(
      missing,
    );
  });

  it("deletes a branch (204)", async () => {
    repo.createBranch("mq/main/7");

    const deleted = await octokit.rest.git.deleteRef({ ...repoParams, ref: "heads/mq/main/7" });

    expect(deleted.status).toBe(204);
    expect(repo.branch("mq/main/7")).toBeUndefined();
    expect(repo.branches()).toEqual(["main"]);
  });

  it("sends a push webhook for every ref change, with the app as sender for API calls", async () => {
    const main = repo.branch("main") as string;
    fake.takeWebhooks();

    await octokit.rest.git.createRef({ ...repoParams, ref: "refs/heads/mq/main/1", sha: main });
    const next = repo.commit("main", { "a.txt": "1" }, "Add a", "alice");
    await octokit.rest.git.deleteRef({ ...repoParams, ref: "heads/mq/main/1" });

    const pushes = fake.takeWebhooks();
    expect(pushes.map((delivery) => delivery.name)).toEqual(["push", "push", "push"]);
    expect(pushes[0]?.payload).toMatchObject({
      ref: "refs/heads/mq/main/1",
      before: "0".repeat(40),
      after: main,
      created: true,
      deleted: false,
      commits: [],
      sender: { login: "switchyard[bot]", type: "Bot" },
      installation: { id: 1 },
      repository: {
        full_name: "acme/widgets",
        name: "widgets",
        owner: { login: "acme" },
        default_branch: "main",
      },
    });
    expect(pushes[1]?.payload).toMatchObject({
      ref: "refs/heads/main",
      before: main,
      after: next,
      created: false,
      forced: false,
      commits: [{ id: next, message: "Add a", added: ["a.txt"], removed: [], modified: [] }],
      head_commit: { id: next },
      sender: { login: "alice", type: "User" },
    });
    expect(pushes[2]?.payload).toMatchObject({ after: "0".repeat(40), deleted: true, head_commit: null });
  });
});

describe("commits", () => {
  it("reads a commit by SHA, abbreviated SHA or branch name", async () => {
    const base = repo.branch("main") as string;
    const sha = repo.commit("main", { "src/a.ts": "a" }, "Add a", "alice");

    const bySha = await octokit.rest.repos.getCommit({ ...repoParams, ref: sha });
    const byShort = await octokit.rest.repos.getCommit({ ...repoParams, ref: sha.slice(0, 7) });
    const byBranch = await octokit.rest.repos.getCommit({ ...repoParams, ref: "main" });
    const git = await octokit.rest.git.getCommit({ ...repoParams, commit_sha: sha });

    expect(bySha.data).toMatchObject({
      sha,
      commit: {
        message: "Add a",
        author: { name: "alice" },
        tree: { sha: expect.stringMatching(/^[0-9a-f]{40}$/) },
      },
      author: { login: "alice" },
      parents: [{ sha: base }],
    });
    expect(byShort.data.sha).toBe(sha);
    expect(byBranch.data.sha).toBe(sha);
    expect(git.data).toMatchObject({ sha, message: "Add a", parents: [{ sha: base }] });
    expect(git.data.tree.sha).toBe(bySha.data.commit.tree.sha);
  });

  it("answers 422 for an unknown ref and 404 for an unknown git commit", async () => {
    await expect(octokit.rest.repos.getCommit({ ...repoParams, ref: "nope" })).rejects.toMatchObject({
      status: 422,
      response: { data: { message: "No commit found for SHA: nope" } },
    });
    await expect(
      octokit.rest.git.getCommit({ ...repoParams, commit_sha: "a".repeat(40) }),
    ).rejects.toMatchObject({
      status: 404,
    });
  });

  it("creates a commit of a known tree on known parents, named by everything it holds, date included", async () => {
    const base = repo.branch("main") as string;
    const sha = repo.commit("main", { "src/a.ts": "a" }, "Add a", "alice");
    const { data: original } = await octokit.rest.git.getCommit({ ...repoParams, commit_sha: sha });
    const again = (date: string) =>
      octokit.rest.git.createCommit({
        ...repoParams,
        message: "Add a",
        tree: original.tree.sha,
        parents: [base],
        author: { name: "alice", email: "alice@example.com", date },
      });

    const first = await again("2026-02-01T00:00:00.000Z");
    const same = await again("2026-02-01T00:00:00.000Z");
    const later = await again("2026-02-01T00:00:01.000Z");

    expect(first.status).toBe(201);
    expect(first.data).toMatchObject({
      message: "Add a",
      tree: { sha: original.tree.sha },
      parents: [{ sha: base }],
      author: { name: "alice", date: "2026-02-01T00:00:00.000Z" },
    });
    expect(same.data.sha).toBe(first.data.sha);
    expect(later.data.sha).not.toBe(first.data.sha);
    expect(repo.branch("main")).toBe(sha);
  });

  it("refuses a commit of an unknown tree or on an unknown parent", async () => {
    const { data: head } = await octokit.rest.git.getCommit({
      ...repoParams,
      commit_sha: repo.branch("main") as string,
    });
    const create = (tree: string, parents: string[]) =>
      octokit.rest.git.createCommit({ ...repoParams, message: "m", tree, parents });

    await expect(create("f".repeat(40), [head.sha])).rejects.toMatchObject({ status: 422 });
    await expect(create(head.tree.sha, ["f".repeat(40)])).rejects.toMatchObject({ status: 422 });
  });

  it("compares two refs", async () => {
    repo.createBranch("feature");
    repo.commit("feature", { f: "1" }, "feature work");
    const base = repo.branch("main") as string;

    const ahead = await octokit.rest.repos.compareCommitsWithBasehead({
      ...repoParams,
      basehead: "main...feature",
    });
    repo.commit("main", { m: "1" }, "main work");
    const diverged = await octokit.rest.repos.compareCommitsWithBasehead({
      ...repoParams,
      basehead: "main...feature",
    });

    expect(ahead.data).toMatchObject({
      status: "ahead",
      ahead_by: 1,
      behind_by: 0,
      merge_base_commit: { sha: base },
    });
    expect(diverged.data).toMatchObject({ status: "diverged", ahead_by: 1, behind_by: 1 });
    expect(diverged.data.commits.map((commit) => commit.commit.message)).toEqual(["feature work"]);
  });
});
