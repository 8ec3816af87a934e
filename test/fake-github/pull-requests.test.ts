import { beforeEach, describe, expect, it } from "vitest";
import type { FakeRepository } from "../../src/sandbox/fake-github/index.ts";
import { FakeGitHub, fakeOctokit } from "../../src/sandbox/fake-github/index.ts";

const repoParams = { owner: "acme", repo: "widgets" };

let fake: FakeGitHub;
let repo: FakeRepository;
let octokit: ReturnType<typeof fakeOctokit>;

beforeEach(() => {
  fake = new FakeGitHub();
  repo = fake.createRepository("acme/widgets", {
    files: { "README.md": "hi", "shared.txt": "v1" },
    installationId: 7,
  });
  octokit = fakeOctokit(fake);
});

const getPull = async (number: number) =>
  (await octokit.rest.pulls.get({ ...repoParams, pull_number: number })).data;

describe("reading pull requests", () => {
  it("answers GitHub's shape, mergeability computed by a trial merge", async () => {
    const pr = repo.openPullRequest({ number: 12, title: "Add a", author: "alice", files: { "a.txt": "a" } });

    const data = await getPull(12);

    expect(data).toMatchObject({
      number: 12,
      title: "Add a",
      state: "open",
      draft: false,
      merged: false,
      merged_at: null,
      mergeable: true,
      mergeable_state: "clean",
      head: { ref: "feature-12", sha: pr.headSha, repo: { full_name: "acme/widgets" } },
      base: { ref: "main", sha: repo.branch("main"), repo: { full_name: "acme/widgets" } },
      user: { login: "alice", type: "User" },
      html_url: "https://github.com/acme/widgets/pull/12",
    });
  });

  it("answers mergeable null while GitHub computes, as many reads as the test asks", async () => {
    repo.openPullRequest({ number: 1, title: "Add a", author: "alice", files: { "a.txt": "a" } });
    repo.setMergeabilityPending(1, 2);

    const reads = [await getPull(1), await getPull(1), await getPull(1)];

    expect(reads.map((read) => [read.mergeable, read.mergeable_state])).toEqual([
      [null, "unknown"],
      [null, "unknown"],
      [true, "clean"],
    ]);
  });

  it("is dirty when the head conflicts with the base branch as it is now", async () => {
    repo.openPullRequest({ number: 1, title: "Edit", author: "alice", files: { "shared.txt": "alice" } });
    expect((await getPull(1)).mergeable_state).toBe("clean");

    repo.commit("main", { "shared.txt": "someone else" });

    expect(await getPull(1)).toMatchObject({ mergeable: false, mergeable_state: "dirty" });
  });

  it("is draft, blocked, behind or unstable as branch protection and CI say", async () => {
    repo.protectBranch("main", { requiredChecks: ["ci"], strict: true });
    const pr = repo.openPullRequest({
      number: 1,
      title: "Add a",
      author: "alice",
      files: { "a.txt": "a" },
      draft: true,
    });
    expect((await getPull(1)).mergeable_state).toBe("draft");

    repo.markReadyForReview(1);
    expect((await getPull(1)).mergeable_state).toBe("blocked");

    repo.reportStatus(pr.headSha, "ci", "success");
    repo.reportCheckRun(pr.headSha, "lint", { conclusion: "failure" });
    expect((await getPull(1)).mergeable_state).toBe("unstable");

    repo.commit("main", { "other.txt": "1" });
    expect(await getPull(1)).toMatchObject({ mergeable: true, mergeable_state: "behind" });
  });

  it("lists by state, head (owner:branch, a bare name being ignored) and base, without mergeability", async () => {
    repo.openPullRequest({ number: 1, title: "One", author: "alice", files: { "1": "1" } });
    repo.openPullRequest({ number: 2, title: "Two", author: "bob", files: { "2": "2" } });
    repo.closePullRequest(2);

    const open = await octokit.rest.pulls.list({ ...repoParams });
    const all = await octokit.rest.pulls.list({ ...repoParams, state: "all" });
    const byHead = await octokit.rest.pulls.list({ ...repoParams, state: "all", head: "acme:feature-2" });
    const bareHead = await octokit.rest.pulls.list({ ...repoParams, head: "feature-2" });
    const otherBase = await octokit.rest.pulls.list({ ...repoParams, base: "release" });

    expect(open.data.map((pr) => pr.number)).toEqual([1]);
    expect(all.data.map((pr) => pr.number)).toEqual([2, 1]);
    expect(byHead.data.map((pr) => pr.number)).toEqual([2]);
    expect(bareHead.data.map((pr) => pr.number)).toEqual([1]);
    expect(otherBase.data).toEqual([]);
    expect(open.data[0]).not.toHaveProperty("mergeable");
  });
});

describe("opening and editing pull requests through the API", () => {
  it("opens a draft PR from a test branch, and refuses a duplicate or an empty one (422)", async () => {
    repo.createBranch("mq/main/1");
    repo.commit("mq/main/1", { "t.txt": "1" }, "Merge #1");

    const created = await octokit.rest.pulls.create({
      ...repoParams,
      title: "[Switchyard] Testing #1",
      head: "mq/main/1",
      base: "main",
      draft: true,
    });

    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({
      number: 1,
      draft: true,
      state: "open",
      user: { login: "switchyard[bot]", type: "Bot" },
      head: { ref: "mq/main/1" },
    });
    await expect(
      octokit.rest.pulls.create({ ...repoParams, title: "again", head: "acme:mq/main/1", base: "main" }),
    ).rejects.toMatchObject({
      status: 422,
      response: {
        data: {
          message: "Validation Failed",
          errors: [{ message: "A pull request already exists for acme:mq/main/1." }],
        },
      },
    });
    repo.createBranch("empty");
    await expect(
      octokit.rest.pulls.create({ ...repoParams, title: "empty", head: "empty", base: "main" }),
    ).rejects.toMatchObject({
      status: 422,
    });
  });

  it("closes, reopens and retargets, sending the matching webhooks", async () => {
    repo.createBranch("release");
    repo.openPullRequest({ number: 3, title: "Fix", author: "alice", files: { "f.txt": "1" } });
    fake.takeWebhooks();

    await octokit.rest.pulls.update({ ...repoParams, pull_number: 3, state: "closed" });
    expect(repo.pullRequest(3)).toMatchObject({ state: "closed", merged: false });
    await octokit.rest.pulls.update({ ...repoParams, pull_number: 3, state: "open" });
    const retargeted = await octokit.rest.pulls.update({ ...repoParams, pull_number: 3, base: "release" });

    expect(retargeted.data.base.ref).toBe("release");
    const events = fake.takeWebhooks().filter((delivery) => delivery.name === "pull_request");
    expect(events.map((delivery) => delivery.payload.action)).toEqual(["closed", "reopened", "edited"]);
    expect(events[2]?.payload).toMatchObject({
      changes: { base: { ref: { from: "main" }, sha: { from: repo.branch("main") } } },
      sender: { login: "switchyard[bot]" },
    });
  });
});

describe("merging pull requests (PUT /pulls/{n}/merge)", () => {
  it("merge: a merge commit of the head on top of the base", async () => {
    const pr = repo.openPullRequest({ number: 4, title: "Add a", author: "alice", files: { "a.txt": "a" } });
    const base = repo.branch("main") as string;

    const merged = await octokit.rest.pulls.merge({
      ...repoParams,
      pull_number: 4,
      merge_method: "merge",
      sha: pr.headSha,
    });

    expect(merged.data).toEqual({
      sha: repo.branch("main"),
      merged: true,
      message: "Pull Request successfully merged",
    });
    const commit = (await octokit.rest.repos.getCommit({ ...repoParams, ref: merged.data.sha })).data;
    expect(commit.parents.map((parent) => parent.sha)).toEqual([base, pr.headSha]);
    expect(commit.commit.message).toBe("Merge pull request #4 from acme/feature-4\n\nAdd a");
    expect(await getPull(4)).toMatchObject({
      state: "closed",
      merged: true,
      merge_commit_sha: merged.data.sha,
      merged_by: { login: "switchyard[bot]" },
    });
  });

  it("squash: one commit with the PR's combined changes, parent the base head", async () => {
    const pr = repo.openPullRequest({ number: 5, title: "Add b", author: "alice", files: { "b.txt": "1" } });
    repo.pushToPullRequest(5, { "b.txt": "2", "c.txt": "c" }, "more");
    repo.commit("main", { "m.txt": "m" }, "unrelated");
    const base = repo.branch("main") as string;

    const merged = await octokit.rest.pulls.merge({
      ...repoParams,
      pull_number: 5,
      merge_method: "squash",
      commit_title: "Add b (#5)",
      commit_message: "",
    });

    const commit = repo.commitOf(merged.data.sha);
    expect(commit.parents).toEqual([base]);
    expect(commit.message).toBe("Add b (#5)");
    expect(commit.author).toBe("alice");
    expect([
      repo.fileAt("main", "b.txt"),
      repo.fileAt("main", "c.txt"),
      repo.fileAt("main", "m.txt"),
    ]).toEqual(["2", "c", "m"]);
    expect(repo.isAncestor(pr.headSha, "main")).toBe(false);
    expect(repo.pullRequest(5)).toMatchObject({ merged: true, mergeCommitSha: merged.data.sha });
  });

  it("rebase: the PR's commits replayed on the base, authors and messages kept", async () => {
    repo.openPullRequest({ number: 6, title: "Two steps", author: "bob", files: { "x.txt": "1" } });
    repo.pushToPullRequest(6, { "y.txt": "1" }, "second step");
    repo.commit("main", { "m.txt": "m" }, "unrelated");

    await octokit.rest.pulls.merge({ ...repoParams, pull_number: 6, merge_method: "rebase" });

    expect(repo.log("main")).toEqual(["second step", "Two steps", "unrelated", "Initial commit"]);
    expect(repo.commitOf(repo.branch("main") as string).author).toBe("bob");
    expect(repo.commitHasFile("main", "x.txt") && repo.commitHasFile("main", "m.txt")).toBe(true);
  });

  it("answers 409 when the head moved since the SHA the caller tested", async () => {
    const pr = repo.openPullRequest({ number: 1, title: "Add a", author: "alice", files: { "a.txt": "a" } });
    repo.pushToPullRequest(1, { "a.txt": "b" });

    await expect(
      octokit.rest.pulls.merge({ ...repoParams, pull_number: 1, merge_method: "squash", sha: pr.headSha }),
    ).rejects.toMatchObject({
      status: 409,
      response: { data: { message: "Head branch was modified. Review and try the merge again." } },
    });
    expect(repo.pullRequest(1).merged).toBe(false);
  });

  it("answers 405 on a conflict, a closed or merged PR, and a draft", async () => {
    repo.openPullRequest({ number: 1, title: "Edit", author: "alice", files: { "shared.txt": "alice" } });
    repo.openPullRequest({ number: 2, title: "Closed", author: "alice", files: { "2.txt": "2" } });
    repo.openPullRequest({
      number: 3,
      title: "Draft",
      author: "alice",
      files: { "3.txt": "3" },
      draft: true,
    });
    repo.commit("main", { "shared.txt": "main" });
    repo.closePullRequest(2);
    const notMergeable = { status: 405, response: { data: { message: "Pull Request is not mergeable" } } };

    for (const method of ["merge", "squash", "rebase"] as const) {
      await expect(
        octokit.rest.pulls.merge({ ...repoParams, pull_number: 1, merge_method: method }),
      ).rejects.toMatchObject(notMergeable);
    }
    await expect(octokit.rest.pulls.merge({ ...repoParams, pull_number: 2 })).rejects.toMatchObject(
      notMergeable,
    );
    await expect(octokit.rest.pulls.merge({ ...repoParams, pull_number: 3 })).rejects.toMatchObject({
      status: 405,
    });
    repo.openPullRequest({ number: 4, title: "Merged", author: "alice", files: { "4.txt": "4" } });
    await octokit.rest.pulls.merge({ ...repoParams, pull_number: 4 });
    await expect(octokit.rest.pulls.merge({ ...repoParams, pull_number: 4 })).rejects.toMatchObject(
      notMergeable,
    );
  });

  it("answers 405 while a required status check has not passed on the head", async () => {
    repo.protectBranch("main", { requiredChecks: ["ci"] });
    const pr = repo.openPullRequest({ number: 1, title: "Add a", author: "alice", files: { "a.txt": "a" } });

    await expect(octokit.rest.pulls.merge({ ...repoParams, pull_number: 1 })).rejects.toMatchObject({
      status: 405,
      response: { data: { message: 'Required status check "ci" is expected.' } },
    });
    repo.reportCheckRun(pr.headSha, "ci", { conclusion: "success" });
    await octokit.rest.pulls.merge({ ...repoParams, pull_number: 1 });
    expect(repo.pullRequest(1).merged).toBe(true);
  });

  it("sends push and pull_request closed (merged) webhooks", async () => {
    repo.openPullRequest({ number: 1, title: "Add a", author: "alice", files: { "a.txt": "a" } });
    fake.takeWebhooks();

    await octokit.rest.pulls.merge({ ...repoParams, pull_number: 1, merge_method: "squash" });

    const events = fake.takeWebhooks();
    expect(events.map((delivery) => delivery.name)).toEqual(["push", "pull_request"]);
    expect(events[1]?.payload).toMatchObject({
      action: "closed",
      number: 1,
      pull_request: { merged: true, state: "closed" },
      installation: { id: 7 },
    });
  });
});

describe("what GitHub does to pull requests when branches move", () => {
  it("marks PRs merged when the base branch is fast-forwarded to a commit containing their heads", async () => {
    repo.protectBranch("main", { requiredChecks: ["ci"] });
    const one = repo.openPullRequest({ number: 1, title: "One", author: "alice", files: { "1.txt": "1" } });
    const two = repo.openPullRequest({ number: 2, title: "Two", author: "bob", files: { "2.txt": "2" } });
    repo.createBranch("mq/main/1");
    await octokit.rest.repos.merge({
      ...repoParams,
      base: "mq/main/1",
      head: one.headSha,
      commit_message: "Merge #1: One",
    });
    const tested = (await octokit.rest.repos.merge({ ...repoParams, base: "mq/main/1", head: two.headSha }))
      .data.sha;

    await expect(
      octokit.rest.git.updateRef({ ...repoParams, ref: "heads/main", sha: tested }),
    ).rejects.toMatchObject({
      status: 422,
      response: { data: { message: 'Required status check "ci" is expected.' } },
    });
    repo.reportStatus(tested, "ci", "success");
    fake.takeWebhooks();
    await octokit.rest.git.updateRef({ ...repoParams, ref: "heads/main", sha: tested });

    expect(repo.branch("main")).toBe(tested);
    expect([repo.pullRequest(1), repo.pullRequest(2)]).toMatchObject([
      { state: "closed", merged: true, mergeCommitSha: tested, mergedBy: "switchyard[bot]" },
      { state: "closed", merged: true },
    ]);
    const closed = fake.takeWebhooks().filter((delivery) => delivery.name === "pull_request");
    expect(
      closed.map((delivery) => [
        delivery.payload.action,
        delivery.payload.number,
        delivery.payload.pull_request.merged,
      ]),
    ).toEqual([
      ["closed", 1, true],
      ["closed", 2, true],
    ]);
  });

  it("refuses to force-push a protected branch", async () => {
    repo.protectBranch("main");
    repo.createBranch("other");
    const other = repo.commit("other", { o: "1" });
    repo.commit("main", { m: "1" });

    await expect(
      octokit.rest.git.updateRef({ ...repoParams, ref: "heads/main", sha: other, force: true }),
    ).rejects.toMatchObject({
      status: 422,
      response: { data: { message: "Cannot force-push to this branch" } },
    });
  });

  it("closes a PR whose head branch is deleted", async () => {
    repo.createBranch("mq/main/2");
    repo.commit("mq/main/2", { t: "1" });
    await octokit.rest.pulls.create({
      ...repoParams,
      title: "Testing",
      head: "mq/main/2",
      base: "main",
      draft: true,
    });

    await octokit.rest.git.deleteRef({ ...repoParams, ref: "heads/mq/main/2" });

    expect(repo.pullRequest(1)).toMatchObject({ state: "closed", merged: false });
  });
});

describe("pull request webhooks from test actions", () => {
  it("opened, synchronize (before/after), converted_to_draft, edited (changes.base), closed, reopened", () => {
    repo.createBranch("release");
    const pr = repo.openPullRequest({ number: 9, title: "Nine", author: "carol", files: { "9.txt": "9" } });
    const opened = fake.takeWebhooks().filter((delivery) => delivery.name === "pull_request");

    const synchronize = repo.pushToPullRequest(9, { "9.txt": "nine" });
    const draft = repo.convertToDraft(9);
    const edited = repo.changeBase(9, "release");
    const closed = repo.closePullRequest(9);
    const reopened = repo.reopenPullRequest(9, "dave");

    expect(opened).toHaveLength(1);
    expect(opened[0]?.payload).toMatchObject({
      action: "opened",
      number: 9,
      pull_request: {
        number: 9,
        state: "open",
        mergeable: null,
        head: { ref: "feature-9", sha: pr.headSha },
        base: { ref: "main" },
        user: { login: "carol" },
      },
      repository: { full_name: "acme/widgets", owner: { login: "acme" }, default_branch: "main" },
      installation: { id: 7 },
      sender: { login: "carol" },
    });
    expect(synchronize.payload).toMatchObject({
      action: "synchronize",
      before: pr.headSha,
      after: repo.branch("feature-9"),
      pull_request: { head: { sha: repo.branch("feature-9") } },
    });
    expect(draft.payload).toMatchObject({ action: "converted_to_draft", pull_request: { draft: true } });
    expect(edited.payload).toMatchObject({
      action: "edited",
      changes: { base: { ref: { from: "main" } } },
      pull_request: { base: { ref: "release" } },
    });
    expect(closed.payload).toMatchObject({
      action: "closed",
      pull_request: { merged: false, state: "closed" },
    });
    expect(reopened.payload).toMatchObject({ action: "reopened", sender: { login: "dave" } });
    expect(fake.webhooks.at(-1)?.id).toBe(reopened.id);
  });
});
