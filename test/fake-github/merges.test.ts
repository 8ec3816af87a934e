import { beforeEach, describe, expect, it } from "vitest";
import type { FakeRepository } from "../../src/sandbox/fake-github/index.ts";
import { FakeGitHub, fakeOctokit } from "../../src/sandbox/fake-github/index.ts";

const repoParams = { owner: "acme", repo: "widgets" };

let fake: FakeGitHub;
let repo: FakeRepository;
let octokit: ReturnType<typeof fakeOctokit>;

beforeEach(() => {
  fake = new FakeGitHub();
  repo = fake.createRepository("acme/widgets", { files: { "README.md": "hi", "shared.txt": "v1" } });
  octokit = fakeOctokit(fake);
});

describe("POST /merges", () => {
  it("builds a test branch: merge commits on top of the target, each holding both sides", async () => {
    const one = repo.openPullRequest({ number: 1, title: "One", author: "alice", files: { "one.txt": "1" } });
    const two = repo.openPullRequest({ number: 2, title: "Two", author: "bob", files: { "two.txt": "2" } });
    const main = repo.branch("main") as string;
    await octokit.rest.git.createRef({ ...repoParams, ref: "refs/heads/mq/main/1", sha: main });

    const first = await octokit.rest.repos.merge({
      ...repoParams,
      base: "mq/main/1",
      head: one.headSha,
      commit_message: "Merge #1: One",
    });
    const second = await octokit.rest.repos.merge({ ...repoParams, base: "mq/main/1", head: "feature-2" });

    expect(first.status).toBe(201);
    expect(first.data).toMatchObject({
      commit: { message: "Merge #1: One" },
      parents: [{ sha: main }, { sha: one.headSha }],
    });
    expect(second.data.commit.message).toBe("Merge feature-2 into mq/main/1");
    expect(repo.branch("mq/main/1")).toBe(second.data.sha);
    expect(repo.log("mq/main/1")).toEqual([
      "Merge feature-2 into mq/main/1",
      "Merge #1: One",
      "Initial commit",
    ]);
    expect(repo.commitHasFile("mq/main/1", "one.txt") && repo.commitHasFile("mq/main/1", "two.txt")).toBe(
      true,
    );
    expect(repo.isAncestor(two.headSha, "mq/main/1")).toBe(true);
    expect(repo.branch("main")).toBe(main);
  });

  it("answers 409 on a real conflict and leaves the base branch alone", async () => {
    repo.openPullRequest({ number: 1, title: "One", author: "alice", files: { "shared.txt": "from one" } });
    repo.openPullRequest({ number: 2, title: "Two", author: "bob", files: { "shared.txt": "from two" } });
    repo.createBranch("mq/main/1");
    await octokit.rest.repos.merge({ ...repoParams, base: "mq/main/1", head: "feature-1" });
    const before = repo.branch("mq/main/1");

    await expect(
      octokit.rest.repos.merge({ ...repoParams, base: "mq/main/1", head: "feature-2" }),
    ).rejects.toMatchObject({
      status: 409,
      response: { data: { message: "Merge conflict" } },
    });
    expect(repo.branch("mq/main/1")).toBe(before);
  });

  it("answers 204 when the head is already merged", async () => {
    const pr = repo.openPullRequest({ number: 1, title: "One", author: "alice", files: { "one.txt": "1" } });
    repo.createBranch("mq/main/1", pr.headSha);

    const again = await octokit.rest.repos.merge({ ...repoParams, base: "mq/main/1", head: pr.headSha });
    const ancestor = await octokit.rest.repos.merge({ ...repoParams, base: "mq/main/1", head: "main" });

    expect([again.status, ancestor.status]).toEqual([204, 204]);
    expect(repo.branch("mq/main/1")).toBe(pr.headSha);
  });

  it("answers 404 when the base or the head does not exist", async () => {
    await expect(
      octokit.rest.repos.merge({ ...repoParams, base: "nope", head: "main" }),
    ).rejects.toMatchObject({
      status: 404,
      response: { data: { message: "Base does not exist" } },
    });
    await expect(
      octokit.rest.repos.merge({ ...repoParams, base: "main", head: "nope" }),
    ).rejects.toMatchObject({
      status: 404,
      response: { data: { message: "Head does not exist" } },
    });
  });

  it("merges a delete on one side with an untouched file on the other, and detects delete against modify", async () => {
    repo.openPullRequest({ number: 1, title: "Delete", author: "alice", files: { "shared.txt": null } });
    repo.openPullRequest({ number: 2, title: "Modify", author: "bob", files: { "shared.txt": "v2" } });
    repo.createBranch("only-delete");
    repo.createBranch("both");

    await octokit.rest.repos.merge({ ...repoParams, base: "only-delete", head: "feature-1" });
    await octokit.rest.repos.merge({ ...repoParams, base: "both", head: "feature-2" });

    expect(repo.commitHasFile("only-delete", "shared.txt")).toBe(false);
    await expect(
      octokit.rest.repos.merge({ ...repoParams, base: "both", head: "feature-1" }),
    ).rejects.toMatchObject({
      status: 409,
    });
  });
});
