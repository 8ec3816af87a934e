import { beforeEach, describe, expect, it } from "vitest";
import type { FakeRepository } from "../../src/sandbox/fake-github/index.ts";
import { FakeGitHub, fakeOctokit } from "../../src/sandbox/fake-github/index.ts";

const repoParams = { owner: "acme", repo: "widgets" };

let fake: FakeGitHub;
let repo: FakeRepository;
let octokit: ReturnType<typeof fakeOctokit>;
let sha: string;

beforeEach(() => {
  fake = new FakeGitHub();
  repo = fake.createRepository("acme/widgets", { installationId: 3 });
  octokit = fakeOctokit(fake);
  repo.createBranch("mq/main/1");
  sha = repo.commit("mq/main/1", { "t.txt": "1" }, "Merge #1: One");
});

describe("commit statuses", () => {
  it("records the app's own status (201) and sends the status webhook", async () => {
    fake.takeWebhooks();

    const created = await octokit.rest.repos.createCommitStatus({
      ...repoParams,
      sha,
      state: "pending",
      context: "Switchyard Merge Queue (main)",
      description: "Queued, position 1",
      target_url: "https://switchyard.example/queues/1",
    });

    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({
      state: "pending",
      context: "Switchyard Merge Queue (main)",
      description: "Queued, position 1",
      target_url: "https://switchyard.example/queues/1",
      creator: { login: "switchyard[bot]" },
    });
    expect(repo.statuses(sha)).toMatchObject([
      { context: "Switchyard Merge Queue (main)", creator: "switchyard[bot]" },
    ]);
    expect(fake.takeWebhooks().map((delivery) => delivery.name)).toEqual(["status"]);
  });

  it("refuses an unknown commit or state (422)", async () => {
    await expect(
      octokit.rest.repos.createCommitStatus({ ...repoParams, sha: "a".repeat(40), state: "success" }),
    ).rejects.toMatchObject({ status: 422 });
    await expect(
      octokit.request("POST /repos/acme/widgets/statuses/{sha}", { sha, state: "green" }),
    ).rejects.toMatchObject({ status: 422, response: { data: { message: "Validation Failed" } } });
  });

  it("combines the latest status per context: failure beats pending beats success, none is pending", async () => {
    const combined = async () =>
      (await octokit.rest.repos.getCombinedStatusForRef({ ...repoParams, ref: sha })).data;
    expect(await combined()).toMatchObject({ state: "pending", total_count: 0, statuses: [], sha });

    repo.reportStatus(sha, "ci", "pending");
    repo.reportStatus(sha, "lint", "success");
    expect((await combined()).state).toBe("pending");

    repo.reportStatus(sha, "ci", "success");
    expect(await combined()).toMatchObject({
      state: "success",
      total_count: 2,
      statuses: [
        { context: "ci", state: "success" },
        { context: "lint", state: "success" },
      ],
    });

    repo.reportStatus(sha, "lint", "error");
    expect((await combined()).state).toBe("failure");
  });

  it("reads by branch name too, and lists every status newest first", async () => {
    repo.reportStatus(sha, "ci", "pending");
    repo.reportStatus(sha, "ci", "failure", { targetUrl: "https://ci.example/1" });

    const byBranch = await octokit.rest.repos.getCombinedStatusForRef({ ...repoParams, ref: "mq/main/1" });
    const list = await octokit.rest.repos.listCommitStatusesForRef({ ...repoParams, ref: sha });

    expect(byBranch.data.state).toBe("failure");
    expect(list.data.map((status) => status.state)).toEqual(["failure", "pending"]);
  });

  it("returns the status webhook of a CI report, with the branches whose head it is", () => {
    const delivery = repo.reportStatus(sha, "ci", "success", {
      targetUrl: "https://ci.example/9",
      description: "ok",
    });

    expect(delivery.name).toBe("status");
    expect(delivery.payload).toMatchObject({
      sha,
      name: "acme/widgets",
      context: "ci",
      state: "success",
      target_url: "https://ci.example/9",
      description: "ok",
      commit: { sha, commit: { message: "Merge #1: One" } },
      branches: [{ name: "mq/main/1", commit: { sha }, protected: false }],
      repository: { full_name: "acme/widgets" },
      installation: { id: 3 },
      sender: { login: "ci-bot" },
    });
  });
});

describe("check runs and suites", () => {
  it("returns created, completed and check_suite completed webhooks as a run goes through", () => {
    const queued = repo.reportCheckRun(sha, "build", { status: "queued" });
    const running = repo.reportCheckRun(sha, "build", { status: "in_progress" });
    const done = repo.reportCheckRun(sha, "build", {
      conclusion: "success",
      detailsUrl: "https://ci.example/b",
    });

    expect(queued.map((delivery) => `${delivery.name}.${delivery.payload.action}`)).toEqual([
      "check_run.created",
    ]);
    expect(running).toEqual([]);
    expect(done.map((delivery) => `${delivery.name}.${delivery.payload.action}`)).toEqual([
      "check_run.completed",
      "check_suite.completed",
    ]);
    expect(done[0]?.payload).toMatchObject({
      check_run: {
        name: "build",
        head_sha: sha,
        status: "completed",
        conclusion: "success",
        details_url: "https://ci.example/b",
        app: { slug: "github-actions" },
        check_suite: { head_branch: "mq/main/1", head_sha: sha, status: "completed", conclusion: "success" },
      },
      sender: { login: "github-actions[bot]", type: "Bot" },
      installation: { id: 3 },
    });
    expect(done[1]?.payload).toMatchObject({
      check_suite: { head_sha: sha, status: "completed", conclusion: "success", latest_check_runs_count: 1 },
    });
  });

  it("completes the suite only when its last run completes, with the worst conclusion", () => {
    repo.reportCheckRun(sha, "build", { status: "in_progress" });
    const first = repo.reportCheckRun(sha, "test", { conclusion: "failure" });
    const last = repo.reportCheckRun(sha, "build", { conclusion: "success" });

    expect(first.map((delivery) => `${delivery.name}.${delivery.payload.action}`)).toEqual([
      "check_run.created",
      "check_run.completed",
    ]);
    expect(last.at(-1)).toMatchObject({
      name: "check_suite",
      payload: { check_suite: { conclusion: "failure" } },
    });
  });

  it("lists the latest run per name with their suite, filters by name and status", async () => {
    repo.reportCheckRun(sha, "build", { conclusion: "failure" });
    repo.reportCheckRun(sha, "build", { conclusion: "success" });
    repo.reportCheckRun(sha, "lint", { status: "in_progress" });

    const latest = await octokit.rest.checks.listForRef({ ...repoParams, ref: sha });
    const all = await octokit.rest.checks.listForRef({ ...repoParams, ref: "mq/main/1", filter: "all" });
    const build = await octokit.rest.checks.listForRef({ ...repoParams, ref: sha, check_name: "build" });
    const running = await octokit.rest.checks.listForRef({ ...repoParams, ref: sha, status: "in_progress" });

    expect(latest.data.total_count).toBe(2);
    expect(latest.data.check_runs.map((run) => [run.name, run.status, run.conclusion])).toEqual([
      ["lint", "in_progress", null],
      ["build", "completed", "success"],
    ]);
    expect(latest.data.check_runs[0]).toMatchObject({
      head_sha: sha,
      html_url: expect.stringContaining("https://github.com/acme/widgets/runs/"),
      details_url: expect.any(String),
      check_suite: { id: expect.any(Number) },
    });
    expect(all.data.total_count).toBe(3);
    expect(build.data.check_runs.map((run) => run.conclusion)).toEqual(["success"]);
    expect(running.data.check_runs.map((run) => run.name)).toEqual(["lint"]);
  });

  it("pages check runs and statuses the way octokit.paginate reads them", async () => {
    for (const name of ["a", "b", "c"]) repo.reportCheckRun(sha, name, { conclusion: "success" });
    for (const context of ["x", "y", "z"]) repo.reportStatus(sha, context, "success");
    const target = { ...repoParams, ref: sha, per_page: 2 };

    const runs = await octokit.paginate(octokit.rest.checks.listForRef, target);
    const statuses = await octokit.paginate(octokit.rest.repos.listCommitStatusesForRef, target);

    expect(runs.map((run) => run.name).sort()).toEqual(["a", "b", "c"]);
    expect(statuses.map((status) => status.context)).toEqual(["z", "y", "x"]);
  });

  it("lists check suites per app", async () => {
    repo.reportCheckRun(sha, "build", { conclusion: "success" });
    repo.reportCheckRun(sha, "scan", { status: "queued", app: "scanner" });

    const suites = await octokit.rest.checks.listSuitesForRef({ ...repoParams, ref: sha });

    expect(suites.data.total_count).toBe(2);
    expect(
      suites.data.check_suites.map((suite) => [suite.app?.slug, suite.status, suite.conclusion]),
    ).toEqual([
      ["github-actions", "completed", "success"],
      ["scanner", "queued", null],
    ]);
  });

  it("answers 422 for an unknown ref", async () => {
    await expect(octokit.rest.checks.listForRef({ ...repoParams, ref: "nope" })).rejects.toMatchObject({
      status: 422,
      response: { data: { message: "No commit found for SHA: nope" } },
    });
  });

  it("lists the PRs whose head is the checked commit", () => {
    const pr = repo.openPullRequest({ number: 5, title: "Five", author: "alice", files: { "5": "5" } });

    const [created] = repo.reportCheckRun(pr.headSha, "build", { status: "queued" });

    expect(created?.payload).toMatchObject({
      check_run: {
        pull_requests: [{ number: 5, head: { ref: "feature-5", sha: pr.headSha }, base: { ref: "main" } }],
      },
    });
  });
});
