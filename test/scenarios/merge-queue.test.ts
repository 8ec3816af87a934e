// The merge queue end to end: `/merge` comments and API calls, test branches built on a fake GitHub with
// real merges, CI results delivered as webhooks, merges in queue order.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { testDialects } from "../support/database.ts";
import { repoRef as repo, type Scenario, startScenario } from "../support/queue-scenario.ts";

const context = "Switchyard Merge Queue (main)";

describe.each(testDialects)("the merge queue on %s", (dialect) => {
  let s: Scenario;
  beforeEach(async () => {
    s = await startScenario({ dialect });
    s.repo.setPermission("alice", "write");
    s.repo.setPermission("mallory", "read");
  });
  afterEach(async () => {
    expect(s.fake.unhandled).toEqual([]);
    await s.close();
  });

  const createQueue = (settings: Record<string, unknown> = {}) =>
    s.api("createQueue", { repo, targetBranch: "main", requiredStatuses: ["ci"], ...settings });
  const openPr = (number: number, files: Record<string, string>) =>
    s.repo.openPullRequest({ number, title: `Change ${number}`, author: "alice", files });
  const submit = (number: number, extra: Record<string, unknown> = {}) =>
    s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number }, ...extra });
  const record = async (number: number) =>
    (await s.api("getSubmittedPullRequest", { repo, targetBranch: "main", pr: { number } })).body;
  const runOf = async (number: number) => {
    const pr = await record(number);
    return (
      await s.api("getMergeQueueTestingDetails", { repo, targetBranch: "main", testRunId: pr.testRunId })
    ).body;
  };
  /** CI reports `ci` on the commit a PR is being tested on. */
  const ciReports = async (number: number, state: "success" | "failure") => {
    const run = await runOf(number);
    s.repo.reportStatus(run.testBranchSha, "ci", state, { targetUrl: "https://ci.example/1" });
    await s.settle();
  };

  it("a /merge comment queues the PR, tests it on a test branch and merges it once CI passes", async () => {
    await createQueue();
    openPr(1, { "src/one.ts": "one\n" });
    s.repo.comment(1, "alice", "Looks good.\n/merge");
    await s.settle();

    const queued = await record(1);
    expect(queued).toMatchObject({
      prNumber: 1,
      state: "testing",
      isCurrentlySubmittedToQueue: true,
      usedDefaultPriorityName: "medium",
    });
    const comment = s.repo.comments(1).find((c) => c.body.includes("/merge"))!;
    expect(s.repo.reactions(comment.id).map((r) => r.content)).toEqual(["+1"]);
    const headSha = s.repo.pullRequest(1).headSha;
    expect(s.repo.statuses(headSha)[0]).toMatchObject({ context, state: "pending" });

    const run = await runOf(1);
    expect(run).toMatchObject({
      testBranch: `mq/main/${queued.testRunId}`,
      status: "in_progress",
      requiredStatuses: ["ci"],
      requiredStatusesSource: "merge_instance",
      testedPullRequests: [
        { prNumber: 1, prUrl: "https://github.com/acme/widgets/pull/1", title: "Change 1" },
      ],
    });
    expect(s.repo.branch(run.testBranch)).toBe(run.testBranchSha);
    expect(s.repo.commitHasFile(run.testBranchSha, "src/one.ts")).toBe(true);

    await ciReports(1, "success");

    expect(await record(1)).toMatchObject({
      state: "merged",
      isCurrentlySubmittedToQueue: false,
      stateReason: "merged",
    });
    expect(s.repo.pullRequest(1).merged).toBe(true);
    expect(s.repo.fileAt("main", "src/one.ts")).toBe("one\n");
    expect(s.repo.statuses(headSha)[0]).toMatchObject({ context, state: "success" });
    expect(s.repo.branch(run.testBranch)).toBeUndefined();
    // The reaction acknowledged the command and the status showed the whole course: no news for a comment.
    expect(s.repo.statuses(headSha)[0]?.description).toBe("Merged by the merge queue");
    expect(s.repo.comments(1).filter((c) => c.author === s.fake.appLogin)).toEqual([]);
    const details = await s.api("getMergeQueueTestingDetails", {
      repo,
      targetBranch: "main",
      testRunId: queued.testRunId,
    });
    expect(details.body).toMatchObject({
      status: "succeeded",
      statusChecks: [{ context: "ci", state: "success", url: "https://ci.example/1" }],
    });
  });

  it("tests PRs concurrently, each on top of the ones ahead, and merges them in queue order", async () => {
    await createQueue({ concurrency: 2 });
    openPr(1, { "src/one.ts": "one\n" });
    openPr(2, { "src/two.ts": "two\n" });
    await submit(1);
    await submit(2);
    await s.settle();

    const [run1, run2] = [await runOf(1), await runOf(2)];
    expect(run1.status).toBe("in_progress");
    expect(run2.status).toBe("in_progress");
    expect(s.repo.commitHasFile(run2.testBranchSha, "src/one.ts")).toBe(true);
    expect(s.repo.commitHasFile(run2.testBranchSha, "src/two.ts")).toBe(true);

    // The run behind finishes first: it still waits for #1 to merge.
    await ciReports(2, "success");
    expect((await record(2)).state).toBe("tests_passed");
    expect(s.repo.pullRequest(1).merged).toBe(false);

    await ciReports(1, "success");
    expect((await record(1)).state).toBe("merged");
    expect((await record(2)).state).toBe("merged");
    expect(
      s.repo
        .log("main")
        .slice(0, 2)
        .map((message) => message.split("\n")[0]),
    ).toEqual(["Change 2 (#2)", "Change 1 (#1)"]);
  });

  it("merge_commit fast-forwards the target branch to the tested commit itself", async () => {
    await createQueue({ mergeMethod: "merge_commit" });
    openPr(1, { "src/one.ts": "one\n" });
    await submit(1);
    await s.settle();
    const run = await runOf(1);
    await ciReports(1, "success");
    expect(s.repo.branch("main")).toBe(run.testBranchSha);
    expect(s.repo.pullRequest(1).merged).toBe(true);
    expect(s.repo.log("main")[0]).toBe("Merge #1: Change 1");
  });

  it("a failed PR fails with tests_failed and the run behind it is rebuilt without it", async () => {
    await createQueue({ concurrency: 2 });
    openPr(1, { "src/one.ts": "broken\n" });
    openPr(2, { "src/two.ts": "two\n" });
    await submit(1);
    await submit(2);
    await s.settle();
    const firstRunOf2 = await runOf(2);

    await ciReports(1, "failure");
    expect(await record(1)).toMatchObject({ state: "failed", stateReason: "tests_failed" });
    expect(s.repo.statuses(s.repo.pullRequest(1).headSha)[0]).toMatchObject({ context, state: "failure" });
    const secondRunOf2 = await runOf(2);
    expect(secondRunOf2.id).not.toBe(firstRunOf2.id);
    expect(
      (await s.api("getMergeQueueTestingDetails", { repo, targetBranch: "main", testRunId: firstRunOf2.id }))
        .body.status,
    ).toBe("cancelled");
    expect(s.repo.commitHasFile(secondRunOf2.testBranchSha, "src/one.ts")).toBe(false);

    await ciReports(2, "success");
    expect((await record(2)).state).toBe("merged");
    expect(s.repo.fileAt("main", "src/one.ts")).toBeUndefined();
  });

  it("a PR that conflicts with the PRs ahead fails with merge_conflict", async () => {
    await createQueue({ concurrency: 2 });
    openPr(1, { "src/a.ts": "from one\n" });
    openPr(2, { "src/a.ts": "from two\n" });
    await submit(1);
    await submit(2);
    await s.settle();
    expect(await record(2)).toMatchObject({ state: "failed", stateReason: "merge_conflict" });
    expect((await record(1)).state).toBe("testing");
  });

  it("without required statuses anywhere, the run fails with no_required_statuses and says how to set them", async () => {
    await s.api("createQueue", { repo, targetBranch: "main" });
    openPr(1, { "src/one.ts": "one\n" });
    await submit(1);
    await s.settle();
    expect(await record(1)).toMatchObject({ state: "failed", stateReason: "no_required_statuses" });
    const botComment = s.repo.comments(1).find((c) => c.author === s.fake.appLogin)!;
    expect(botComment.body).toContain("switchyard.yml");
  });

  it("takes required statuses from .github/switchyard.yml before branch protection", async () => {
    s.repo.protectBranch("main", { requiredChecks: ["protected-ci"] });
    s.repo.commit("main", { ".github/switchyard.yml": "merge:\n  required_statuses:\n    - from-config\n" });
    await s.settle();
    await s.api("createQueue", { repo, targetBranch: "main" });
    openPr(1, { "src/one.ts": "one\n" });
    await submit(1);
    await s.settle();
    // Protection blocks the PR until its own checks pass; GitHub says so with no webhook of its own.
    expect(await record(1)).toMatchObject({
      state: "not_ready",
      readiness: { providerMergeability: "not_mergeable" },
    });
    s.repo.reportStatus(s.repo.pullRequest(1).headSha, "protected-ci", "success");
    await s.settle();
    expect(await runOf(1)).toMatchObject({
      requiredStatuses: ["from-config"],
      requiredStatusesSource: "service_config",
    });
  });

  it("takes required statuses from branch protection and rulesets", async () => {
    s.repo.protectBranch("main", { requiredChecks: ["build"] });
    s.repo.addRuleset("main", ["lint"]);
    await s.api("createQueue", { repo, targetBranch: "main" });
    openPr(1, { "src/one.ts": "one\n" });
    s.repo.reportCheckRun(s.repo.pullRequest(1).headSha, "build", { conclusion: "success" });
    s.repo.reportCheckRun(s.repo.pullRequest(1).headSha, "lint", { conclusion: "success" });
    await submit(1);
    await s.settle();
    const run = await runOf(1);
    expect(run).toMatchObject({ requiredStatusesSource: "repo_provider_branch_protection" });
    expect([...run.requiredStatuses].sort()).toEqual(["build", "lint"]);
    s.repo.reportCheckRun(run.testBranchSha, "build", { conclusion: "success" });
    await s.settle();
    expect((await record(1)).state).toBe("testing");
    s.repo.reportCheckRun(run.testBranchSha, "lint", { conclusion: "success" });
    await s.settle();
    expect((await record(1)).state).toBe("merged");
  });

  it("a run that never finishes fails with timeout", async () => {
    await createQueue({ testingTimeoutMinutes: 30 });
    openPr(1, { "src/one.ts": "one\n" });
    await submit(1);
    await s.settle();
    s.clock.now += 31 * 60_000;
    await s.poll();
    expect(await record(1)).toMatchObject({ state: "failed", stateReason: "timeout" });
  });

  it("a missed webhook does not wedge a run: polling reads the result", async () => {
    await createQueue();
    openPr(1, { "src/one.ts": "one\n" });
    await submit(1);
    await s.settle();
    const run = await runOf(1);
    s.repo.reportCheckRun(run.testBranchSha, "ci", { conclusion: "success" });
    s.fake.takeWebhooks(); // lost on the way
    expect((await record(1)).state).toBe("testing");
    await s.poll();
    expect((await record(1)).state).toBe("merged");
  });

  it("a CI result that comes before the service recorded the test branch's commit counts at once", async () => {
    await s.close();
    // CI reports the moment the test branch is pushed: its webhook reaches the service while the service still
    // waits for GitHub's answer to that push, before it knows the commit.
    s = await startScenario({
      dialect,
      whileAppWaits: async (request, response) => {
        if (request.method !== "POST" || !request.url.endsWith("/git/refs") || response.status !== 201)
          return;
        const { ref, object } = (await response.json()) as { ref: string; object: { sha: string } };
        if (!ref.startsWith("refs/heads/mq/")) return;
        s.repo.reportStatus(object.sha, "ci", "success");
        await s.deliverWebhooks();
      },
    });
    s.repo.setPermission("alice", "write");
    await createQueue();
    openPr(1, { "src/one.ts": "one\n" });
    await submit(1);
    await s.settle();
    expect((await record(1)).state).toBe("merged");
  });

  it("a redelivered webhook changes nothing", async () => {
    await createQueue();
    openPr(1, { "src/one.ts": "one\n" });
    openPr(2, { "src/two.ts": "two\n" });
    const delivery = s.repo.comment(1, "alice", "/merge");
    await s.settle();
    await submit(2);
    await s.settle();
    const before = await s.api("getQueue", { repo, targetBranch: "main" });
    const { deliverWebhook } = await import("../support/webhooks.ts");
    await deliverWebhook(s.server.url, delivery.name, delivery.payload, delivery.id);
    await s.settle();
    expect(await s.api("getQueue", { repo, targetBranch: "main" })).toEqual(before);
  });

  it("a push to the target branch outside the queue rebuilds the run instead of merging stale results", async () => {
    await createQueue();
    openPr(1, { "src/one.ts": "one\n" });
    await submit(1);
    await s.settle();
    const stale = await runOf(1);
    s.repo.commit("main", { "hotfix.txt": "urgent\n" }, "Hotfix");
    await s.settle();
    const fresh = await runOf(1);
    expect(fresh.id).not.toBe(stale.id);
    expect(s.repo.commitHasFile(fresh.testBranchSha, "hotfix.txt")).toBe(true);
    s.repo.reportStatus(stale.testBranchSha, "ci", "success");
    await s.settle();
    expect((await record(1)).state).toBe("testing");
    await ciReports(1, "success");
    expect((await record(1)).state).toBe("merged");
    expect(s.repo.fileAt("main", "hotfix.txt")).toBe("urgent\n");
  });

  it("takes a PR out of the queue when it is pushed to, closed, made a draft or retargeted", async () => {
    await createQueue({ concurrency: 4 });
    s.repo.createBranch("develop");
    for (const n of [1, 2, 3, 4]) {
      openPr(n, { [`src/${n}.ts`]: `${n}\n` });
      await submit(n);
    }
    await s.settle();
    s.repo.pushToPullRequest(1, { "src/1.ts": "changed\n" });
    s.repo.closePullRequest(2);
    s.repo.convertToDraft(3);
    s.repo.changeBase(4, "develop");
    await s.settle();
    expect((await record(1)).stateReason).toBe("pr_updated");
    expect((await record(2)).stateReason).toBe("pr_closed");
    expect((await record(3)).stateReason).toBe("pr_draft");
    expect((await record(4)).stateReason).toBe("base_changed");
    for (const n of [1, 2, 3, 4]) expect((await record(n)).state).toBe("cancelled");
    expect((await s.api("getQueue", { repo, targetBranch: "main" })).body.enqueuedPullRequests).toEqual([]);
  });

  it("/merge cancel and /merge restart, and a polite refusal for users without write access", async () => {
    await createQueue();
    openPr(1, { "src/one.ts": "one\n" });
    s.repo.comment(1, "mallory", "/merge");
    await s.settle();
    expect(
      (await s.api("getSubmittedPullRequest", { repo, targetBranch: "main", pr: { number: 1 } })).status,
    ).toBe(404);
    expect(s.repo.comments(1).at(-1)?.body).toContain("only people with write access");

    s.repo.comment(1, "alice", "/merge");
    await s.settle();
    const firstRun = (await record(1)).testRunId;
    s.repo.comment(1, "alice", "/merge restart");
    await s.settle();
    const restarted = await record(1);
    expect(restarted.state).toBe("testing");
    expect(restarted.testRunId).not.toBe(firstRun);

    s.repo.comment(1, "alice", "/merge cancel");
    await s.settle();
    expect(await record(1)).toMatchObject({
      state: "cancelled",
      stateReason: "cancelled_by_user",
      stateDetail: "Cancelled on request by @alice, with a /merge cancel comment.",
    });
    expect(s.repo.statuses(s.repo.pullRequest(1).headSha)[0]).toMatchObject({ context, state: "error" });
  });

  it("a paused queue starts nothing until it runs again; a draining one refuses new PRs", async () => {
    await createQueue();
    await s.api("updateQueue", { repo, targetBranch: "main", state: "paused" });
    openPr(1, { "src/one.ts": "one\n" });
    openPr(2, { "src/two.ts": "two\n" });
    await submit(1);
    await s.settle();
    expect((await record(1)).state).toBe("pending");
    expect(s.repo.branches().filter((b) => b.startsWith("mq/"))).toEqual([]);

    await s.api("updateQueue", { repo, targetBranch: "main", state: "draining" });
    await s.settle();
    expect((await record(1)).state).toBe("testing");
    const refused = await submit(2);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("queue_draining");
  });

  it("an urgent PR skips the line; the PR it displaced waits to be tested again on top of it", async () => {
    await createQueue();
    openPr(1, { "src/one.ts": "one\n" });
    openPr(2, { "src/two.ts": "two\n" });
    await submit(1);
    await s.settle();
    const displaced = (await record(1)).testRunId;
    const urgent = await submit(2, { priority: "urgent" });
    expect(urgent.body).toMatchObject({ priorityName: "urgent", priorityValue: 0, skipTheLine: true });
    await s.settle();
    expect((await record(2)).state).toBe("testing");
    expect(await record(1)).toMatchObject({ state: "pending", stateReason: "urgent_pr_ahead" });
    const abandoned = await s.api("getMergeQueueTestingDetails", {
      repo,
      targetBranch: "main",
      testRunId: displaced,
    });
    expect(abandoned.body.status).toBe("cancelled");
    expect(
      (await s.api("getQueue", { repo, targetBranch: "main" })).body.enqueuedPullRequests.map(
        (p: { prNumber: number }) => p.prNumber,
      ),
    ).toEqual([2, 1]);
    await ciReports(2, "success");
    const retest = await runOf(1);
    expect(retest.id).not.toBe(displaced);
    expect(s.repo.commitHasFile(retest.testBranchSha, "src/two.ts")).toBe(true);
  });

  it("submitting refuses closed PRs, unknown PRs and PRs of a queue that does not exist", async () => {
    await createQueue();
    openPr(1, { "src/one.ts": "one\n" });
    s.repo.closePullRequest(1);
    await s.settle();
    expect((await submit(1)).body.code).toBe("pull_request_closed");
    expect((await submit(99)).body.code).toBe("pull_request_not_found");
    const otherQueue = await s.api("submitPullRequest", { repo, targetBranch: "develop", pr: { number: 1 } });
    expect(otherQueue.body.code).toBe("queue_not_found");
    expect(
      (await s.api("cancelPullRequest", { repo, targetBranch: "main", pr: { number: 5 } })).body.code,
    ).toBe("pull_request_not_submitted");
  });

  it("lists every submission newest first, page by page", async () => {
    await createQueue({ concurrency: 3 });
    for (const n of [1, 2, 3]) {
      openPr(n, { [`src/${n}.ts`]: `${n}\n` });
      await submit(n);
      s.clock.now += 1000;
    }
    await s.settle();
    const first = await s.api("listPullRequests", { repo, targetBranch: "main", take: 2 });
    expect(first.body.pullRequests.map((p: { prNumber: number }) => p.prNumber)).toEqual([3, 2]);
    const second = await s.api("listPullRequests", {
      repo,
      targetBranch: "main",
      take: 2,
      cursor: first.body.nextCursor,
    });
    expect(second.body).toMatchObject({
      pullRequests: [expect.objectContaining({ prNumber: 1 })],
      nextCursor: null,
    });
    const forged = await s.api("listPullRequests", { repo, targetBranch: "main", cursor: "bm9wZQ" });
    expect(forged).toMatchObject({ status: 400, body: { code: "invalid_page_token" } });
  });
});
