// The fake's branch rules refuse as GitHub does: by path (422 for a ref write, 409 for a merge, 405 for a PR
// merge), in the rule's own words, for what the change brings; what GitHub makes is signed, what the app makes in
// someone else's name is not.
import { beforeEach, describe, expect, it } from "vitest";
import type { FakeRepository } from "../../src/sandbox/fake-github/index.ts";
import { FakeGitHub, fakeOctokit } from "../../src/sandbox/fake-github/index.ts";

const repoParams = { owner: "acme", repo: "widgets" };

let fake: FakeGitHub;
let repo: FakeRepository;
let octokit: ReturnType<typeof fakeOctokit>;

beforeEach(() => {
  fake = new FakeGitHub();
  repo = fake.createRepository("acme/widgets", { files: { "README.md": "hi" } });
  octokit = fakeOctokit(fake);
});

const refusal = async (call: Promise<unknown>) => {
  const error = (await call.then(
    () => ({ status: 0, response: { data: { message: "accepted" } } }),
    (failure: unknown) => failure,
  )) as { status: number; response: { data: { message: string } } };
  return { status: error.status, message: error.response.data.message };
};

/** A commit the app makes with an author and a date of its own, on top of main: GitHub cannot sign it. */
const appCommit = async (signed: boolean) => {
  const main = repo.commitOf(repo.branch("main") as string);
  const { data } = await octokit.rest.git.createCommit({
    ...repoParams,
    message: "Made by the app",
    tree: main.treeSha,
    parents: [main.sha],
    ...(signed
      ? {}
      : { author: { name: "Switchyard", email: "s@example.com", date: "2026-01-01T00:00:00Z" } }),
  });
  return data;
};

describe("required signatures", () => {
  beforeEach(() => {
    repo.rules.addRuleset({ name: "signed", branches: ["main"], rules: [{ type: "required_signatures" }] });
  });

  it("refuses moving main to a commit the app made in someone else's name, 422, and accepts one GitHub signed", async () => {
    const unsigned = await appCommit(false);
    expect(unsigned.verification).toMatchObject({ verified: false, reason: "unsigned" });
    expect(
      await refusal(octokit.rest.git.updateRef({ ...repoParams, ref: "heads/main", sha: unsigned.sha })),
    ).toEqual({
      status: 422,
      message: "Repository rule violations found\n\nCommits must have verified signatures.\n\n",
    });
    const signed = await appCommit(true);
    expect(signed.verification).toMatchObject({ verified: true });
    await octokit.rest.git.updateRef({ ...repoParams, ref: "heads/main", sha: signed.sha });
    expect(repo.branch("main")).toBe(signed.sha);
  });

  it("lets other branches take unsigned commits, and lists the rule for main only", async () => {
    const unsigned = await appCommit(false);
    await octokit.rest.git.createRef({ ...repoParams, ref: "refs/heads/mq/main/1", sha: unsigned.sha });
    const { data: rules } = await octokit.rest.repos.getBranchRules({ ...repoParams, branch: "main" });
    expect(rules).toEqual([
      expect.objectContaining({ type: "required_signatures", ruleset_id: expect.any(Number) }),
    ]);
    expect((await octokit.rest.repos.getBranchRules({ ...repoParams, branch: "mq/main/1" })).data).toEqual(
      [],
    );
  });

  it("refuses a PR merge bringing the PR's unsigned commits (405), and squashes it into a signed commit", async () => {
    const pr = repo.openPullRequest({ number: 1, title: "One", author: "alice", files: { "one.txt": "1" } });
    repo.rules.markUnsigned(pr.headSha);
    const merged = octokit.rest.pulls.merge({ ...repoParams, pull_number: 1, merge_method: "merge" });
    expect(await refusal(merged)).toEqual({
      status: 405,
      message: "Repository rule violations found\n\nCommits must have verified signatures.\n\n",
    });
    const { data } = await octokit.rest.pulls.merge({
      ...repoParams,
      pull_number: 1,
      merge_method: "squash",
    });
    expect(repo.branch("main")).toBe(data.sha);
    expect(repo.rules.isVerified(data.sha)).toBe(true);
  });

  it("sends repository_ruleset when a ruleset is added", () => {
    expect(fake.webhooks.map((webhook) => webhook.name)).toContain("repository_ruleset");
  });
});

describe("linear history", () => {
  it("refuses a merge commit on main through POST /merges with 409 in the rule's words, not as a conflict", async () => {
    repo.rules.addRuleset({
      name: "linear",
      branches: ["~ALL"],
      rules: [{ type: "required_linear_history" }],
    });
    const pr = repo.openPullRequest({ number: 1, title: "One", author: "alice", files: { "one.txt": "1" } });
    expect(
      await refusal(octokit.rest.repos.merge({ ...repoParams, base: "main", head: pr.headSha })),
    ).toEqual({
      status: 409,
      message: "Repository rule violations found\n\nThis branch must not contain merge commits.\n\n",
    });
  });

  it("legacy protection: a merge-method PR merge is refused, a rebase lands", async () => {
    repo.protectBranch("main", { requiredLinearHistory: true });
    repo.openPullRequest({ number: 1, title: "One", author: "alice", files: { "one.txt": "1" } });
    repo.commit("main", { "other.txt": "x" });
    expect(
      await refusal(octokit.rest.pulls.merge({ ...repoParams, pull_number: 1, merge_method: "merge" })),
    ).toEqual({
      status: 405,
      message:
        "Protected branch update failed for refs/heads/main.\n\nThis branch must not contain merge commits.",
    });
    await octokit.rest.pulls.merge({ ...repoParams, pull_number: 1, merge_method: "rebase" });
    expect(repo.pullRequest(1).merged).toBe(true);
    const { data } = await octokit.rest.repos.getBranchProtection({ ...repoParams, branch: "main" });
    expect(data.required_linear_history).toEqual({ enabled: true });
  });
});

describe("a locked branch", () => {
  it("refuses every change to it, whatever the path", async () => {
    repo.protectBranch("main", { lockBranch: true });
    const pr = repo.openPullRequest({ number: 1, title: "One", author: "alice", files: { "one.txt": "1" } });
    const locked = "Protected branch update failed for refs/heads/main.\n\nCannot change this locked branch";
    expect(
      await refusal(octokit.rest.pulls.merge({ ...repoParams, pull_number: 1, merge_method: "squash" })),
    ).toEqual({ status: 405, message: locked });
    expect(
      await refusal(octokit.rest.git.updateRef({ ...repoParams, ref: "heads/main", sha: pr.headSha })),
    ).toEqual({ status: 422, message: locked });
    expect(repo.pullRequest(1).merged).toBe(false);
  });
});
