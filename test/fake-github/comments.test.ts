import { beforeEach, describe, expect, it } from "vitest";
import type { FakeRepository } from "../../src/sandbox/fake-github/index.ts";
import { FakeGitHub, fakeOctokit } from "../../src/sandbox/fake-github/index.ts";

const repoParams = { owner: "acme", repo: "widgets" };

let fake: FakeGitHub;
let repo: FakeRepository;
let octokit: ReturnType<typeof fakeOctokit>;

beforeEach(() => {
  fake = new FakeGitHub();
  repo = fake.createRepository("acme/widgets", { installationId: 1 });
  octokit = fakeOctokit(fake);
  repo.openPullRequest({ number: 12, title: "Add a", author: "alice", files: { "a.txt": "a" } });
});

describe("comments", () => {
  it("returns the issue_comment webhook of a person's comment on a PR", () => {
    repo.setPermission("bob", "write");

    const delivery = repo.comment(12, "bob", "/merge --priority high");

    expect(delivery.name).toBe("issue_comment");
    expect(delivery.payload).toMatchObject({
      action: "created",
      issue: {
        number: 12,
        title: "Add a",
        state: "open",
        user: { login: "alice" },
        pull_request: { url: "https://api.github.com/repos/acme/widgets/pulls/12", merged_at: null },
      },
      comment: {
        id: expect.any(Number),
        body: "/merge --priority high",
        user: { login: "bob", type: "User" },
        author_association: "COLLABORATOR",
        html_url: expect.stringContaining("/pull/12#issuecomment-"),
      },
      repository: { full_name: "acme/widgets" },
      installation: { id: 1 },
      sender: { login: "bob" },
    });
    expect(repo.comments(12).map((comment) => comment.body)).toEqual(["/merge --priority high"]);
  });

  it("posts, lists and edits the app's comment", async () => {
    const posted = await octokit.rest.issues.createComment({
      ...repoParams,
      issue_number: 12,
      body: "Queued",
    });
    await octokit.rest.issues.updateComment({ ...repoParams, comment_id: posted.data.id, body: "Testing" });
    const listed = await octokit.rest.issues.listComments({ ...repoParams, issue_number: 12 });

    expect(posted.status).toBe(201);
    expect(posted.data).toMatchObject({ body: "Queued", user: { login: "switchyard[bot]", type: "Bot" } });
    expect(listed.data.map((comment) => [comment.id, comment.body])).toEqual([[posted.data.id, "Testing"]]);
    expect(repo.comments(12)).toMatchObject([{ author: "switchyard[bot]", body: "Testing" }]);
    const events = fake.takeWebhooks().filter((delivery) => delivery.name === "issue_comment");
    expect(events.map((delivery) => delivery.payload.action)).toEqual(["created", "edited"]);
    expect(events[1]?.payload).toMatchObject({
      changes: { body: { from: "Queued" } },
      comment: { body: "Testing" },
    });
  });

  it("answers 404 for a comment on an unknown PR or an edit of an unknown comment", async () => {
    await expect(
      octokit.rest.issues.createComment({ ...repoParams, issue_number: 99, body: "x" }),
    ).rejects.toMatchObject({ status: 404 });
    await expect(
      octokit.rest.issues.updateComment({ ...repoParams, comment_id: 123456, body: "x" }),
    ).rejects.toMatchObject({
      status: 404,
    });
  });

  it("pages long comment lists with a Link header", async () => {
    for (let index = 0; index < 35; index++) repo.comment(12, "bob", `comment ${index}`);

    const first = await octokit.rest.issues.listComments({ ...repoParams, issue_number: 12 });
    const all = await octokit.paginate(octokit.rest.issues.listComments, { ...repoParams, issue_number: 12 });

    expect(first.data).toHaveLength(30);
    expect(first.headers.link).toContain('rel="next"');
    expect(all.map((comment) => comment.body).at(-1)).toBe("comment 34");
    expect(all).toHaveLength(35);
  });
});

describe("reactions", () => {
  it("adds a reaction (201), answers 200 when it already exists, 422 for an unknown content", async () => {
    const { payload } = repo.comment(12, "bob", "/merge");

    const first = await octokit.rest.reactions.createForIssueComment({
      ...repoParams,
      comment_id: payload.comment.id,
      content: "+1",
    });
    const again = await octokit.rest.reactions.createForIssueComment({
      ...repoParams,
      comment_id: payload.comment.id,
      content: "+1",
    });

    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.data.id).toBe(first.data.id);
    expect(first.data).toMatchObject({ content: "+1", user: { login: "switchyard[bot]" } });
    expect(repo.reactions(payload.comment.id)).toMatchObject([{ content: "+1", user: "switchyard[bot]" }]);
    await expect(
      octokit.request("POST /repos/acme/widgets/issues/comments/{id}/reactions", {
        id: payload.comment.id,
        content: "tada",
      }),
    ).rejects.toMatchObject({ status: 422 });
  });

  it("answers 404 for a reaction to an unknown comment", async () => {
    await expect(
      octokit.rest.reactions.createForIssueComment({ ...repoParams, comment_id: 42424242, content: "eyes" }),
    ).rejects.toMatchObject({ status: 404 });
  });
});
