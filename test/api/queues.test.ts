import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tokenFor } from "../support/api-server.ts";
import { testDialects } from "../support/database.ts";
import { repoRef as repo, type Scenario, startScenario } from "../support/queue-scenario.ts";

describe.each(testDialects)("queue administration over HTTP on %s", (dialect) => {
  let scenario: Scenario;
  beforeEach(async () => {
    scenario = await startScenario({ dialect });
  });
  afterEach(async () => {
    await scenario.close();
  });

  it("creates a queue with every default setting", async () => {
    const { status, body } = await scenario.api("createQueue", { repo, targetBranch: "main" });
    expect(status).toBe(200);
    expect(body).toEqual({
      state: "running",
      branch: "main",
      concurrency: 1,
      testingTimeoutMinutes: 300,
      mode: "single",
      canOptimisticallyMerge: false,
      pendingFailureDepth: 0,
      batch: false,
      batchingMaxWaitTimeMinutes: 5,
      batchingMinSize: 4,
      createPrsForTestingBranches: false,
      commentsEnabled: true,
      commandsEnabled: true,
      statusCheckEnabled: true,
      bisectionConcurrency: 1,
      requiredStatuses: null,
      directMergeMode: "off",
      optimizationMode: "off",
      mergeMethod: "squash",
      confirmFailures: false,
      adaptiveBatching: false,
      waitingForBranch: false,
      enqueuedPullRequests: [],
      branchRules: { readAt: expect.any(String), rules: [], refusals: 0, lastRefusal: null },
    });
  });

  it("creates a queue with the settings of the request, accepting enums in any case", async () => {
    scenario.repo.createBranch("release/1.x");
    const { status, body } = await scenario.api("createQueue", {
      repo,
      targetBranch: "release/1.x",
      concurrency: 3,
      mode: "PARALLEL",
      mergeMethod: "Merge_Commit",
      requiredStatuses: ["ci/build", "ci/test", "ci/build"],
      batch: true,
      unknownField: "ignored",
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      branch: "release/1.x",
      concurrency: 3,
      bisectionConcurrency: 3,
      mode: "parallel",
      mergeMethod: "merge_commit",
      requiredStatuses: ["ci/build", "ci/test"],
      batch: true,
    });
    expect(body).not.toHaveProperty("unknownField");
  });

  it("finds the queue again whatever the case of owner and branch", async () => {
    await scenario.api("createQueue", { repo, targetBranch: "main" });
    const again = await scenario.api("getQueue", { repo: { ...repo, owner: "ACME" }, targetBranch: "MAIN" });
    expect(again.status).toBe(200);
    expect(again.body.branch).toBe("main");
  });

  it("refuses a second queue for the same branch with 409 queue_exists", async () => {
    await scenario.api("createQueue", { repo, targetBranch: "main" });
    const duplicate = await scenario.api("createQueue", { repo, targetBranch: "Main" });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.code).toBe("queue_exists");
  });

  describe("for a branch the repository does not have yet", () => {
    const release = "release/2.0";
    const createQueue = () =>
      scenario.api("createQueue", { repo, targetBranch: release, requiredStatuses: ["ci"] });
    const getQueue = async () => (await scenario.api("getQueue", { repo, targetBranch: release })).body;
    const submitAndPass = async () => {
      scenario.repo.openPullRequest({
        number: 1,
        title: "Fix",
        author: "alice",
        base: release,
        files: { "src/fix.ts": "fix\n" },
      });
      await scenario.api("submitPullRequest", { repo, targetBranch: release, pr: { number: 1 } });
      await scenario.settle();
      const pr = await scenario.api("getSubmittedPullRequest", {
        repo,
        targetBranch: release,
        pr: { number: 1 },
      });
      expect(pr.body.state).toBe("testing");
      const run = await scenario.api("getMergeQueueTestingDetails", {
        repo,
        targetBranch: release,
        testRunId: pr.body.testRunId,
      });
      scenario.repo.reportStatus(run.body.testBranchSha, "ci", "success");
      await scenario.settle();
      expect(scenario.repo.fileAt(release, "src/fix.ts")).toBe("fix\n");
    };

    it("creates the queue, which says it waits for the branch and works once the branch is pushed", async () => {
      const { status, body } = await createQueue();
      expect(status).toBe(200);
      expect(body).toMatchObject({ state: "running", branch: release, waitingForBranch: true });
      expect(await getQueue()).toMatchObject({ state: "running", waitingForBranch: true });

      scenario.repo.createBranch(release);
      await scenario.settle();
      expect(await getQueue()).toMatchObject({ state: "running", waitingForBranch: false });
      await submitAndPass();
    });

    it("learns the branch at the first submission when the push's webhook was lost", async () => {
      await createQueue();
      scenario.repo.createBranch(release);
      scenario.fake.takeWebhooks();
      await submitAndPass();
      expect(await getQueue()).toMatchObject({ waitingForBranch: false });
    });
  });

  it("answers 404 repo_not_installed when the app is not on the repository", async () => {
    scenario.fake.createRepository("acme/private-thing");
    const { status, body } = await scenario.api("createQueue", {
      repo: { ...repo, name: "private-thing" },
      targetBranch: "main",
    });
    expect(status).toBe(404);
    expect(body).toMatchObject({ status: 404, code: "repo_not_installed", type: "about:blank" });
  });

  it("answers 403 for a repository outside the token's organization, without asking GitHub", async () => {
    const { status, body } = await scenario.api("getQueue", {
      repo: { ...repo, owner: "other-org" },
      targetBranch: "main",
    });
    expect(status).toBe(403);
    expect(body.code).toBe("forbidden");
    expect(scenario.fake.calls()).toEqual([]);
  });

  it("covers the extra owners a token's organization was given", async () => {
    const multiOwner = await tokenFor(scenario.store, "platform", ["acme", "acme-labs"]);
    const response = await scenario.server.post("createQueue", { repo, targetBranch: "main" }, multiOwner);
    expect(response.status).toBe(200);
  });

  it("answers 400 unsupported_host for another GitHub host", async () => {
    const { status, body } = await scenario.api("getQueue", {
      repo: { ...repo, host: "gitlab.com" },
      targetBranch: "main",
    });
    expect(status).toBe(400);
    expect(body.code).toBe("unsupported_host");
  });

  it("answers 404 queue_not_found for a branch without a queue", async () => {
    const { status, body } = await scenario.api("getQueue", { repo, targetBranch: "develop" });
    expect(status).toBe(404);
    expect(body).toMatchObject({
      code: "queue_not_found",
      detail: "no merge queue for branch develop in github.com/acme/widgets",
    });
  });

  it("updates settings and state, and removes the required statuses override", async () => {
    await scenario.api("createQueue", { repo, targetBranch: "main", requiredStatuses: ["ci"] });
    const updated = await scenario.api("updateQueue", {
      repo,
      targetBranch: "main",
      state: "DRAINING",
      concurrency: 5,
      bisectionConcurrency: 2,
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      state: "draining",
      concurrency: 5,
      bisectionConcurrency: 2,
      requiredStatuses: ["ci"],
    });
    const cleared = await scenario.api("updateQueue", {
      repo,
      targetBranch: "main",
      deleteRequiredStatuses: true,
    });
    expect(cleared.body.requiredStatuses).toBeNull();
    const read = await scenario.api("getQueue", { repo, targetBranch: "main" });
    expect(read.body).toMatchObject({ state: "draining", concurrency: 5, requiredStatuses: null });
  });

  it("takes the batching extensions at creation and update, shows them and mirrors them in the queues table", async () => {
    const created = await scenario.api("createQueue", { repo, targetBranch: "main", confirmFailures: true });
    expect(created.body).toMatchObject({ confirmFailures: true, adaptiveBatching: false });
    const updated = await scenario.api("updateQueue", {
      repo,
      targetBranch: "main",
      confirmFailures: false,
      adaptiveBatching: true,
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ confirmFailures: false, adaptiveBatching: true });
    const read = await scenario.api("getQueue", { repo, targetBranch: "main" });
    expect(read.body).toMatchObject({ confirmFailures: false, adaptiveBatching: true });
    const row = await scenario.store.db
      .selectFrom("queues")
      .select(["confirm_failures", "adaptive_batching"])
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ confirm_failures: 0, adaptive_batching: 1 });
  });

  it("refuses batching extensions that are not booleans with the problem JSON", async () => {
    await scenario.api("createQueue", { repo, targetBranch: "main" });
    const { status, body } = await scenario.api("updateQueue", {
      repo,
      targetBranch: "main",
      confirmFailures: "yes",
      adaptiveBatching: 1,
    });
    expect(status).toBe(400);
    expect(body).toMatchObject({ code: "invalid_request", status: 400 });
    expect(body.errors).toEqual(
      expect.arrayContaining([
        { path: "confirmFailures", message: expect.any(String) },
        { path: "adaptiveBatching", message: expect.any(String) },
      ]),
    );
    const created = await scenario.api("createQueue", {
      repo,
      targetBranch: "other",
      adaptiveBatching: null,
    });
    expect(created.status).toBe(400);
    expect(created.body.errors).toEqual([{ path: "adaptiveBatching", message: expect.any(String) }]);
    expect((await scenario.api("getQueue", { repo, targetBranch: "main" })).body).toMatchObject({
      confirmFailures: false,
      adaptiveBatching: false,
    });
  });

  it("refuses to set switching_modes, which only the service sets", async () => {
    await scenario.api("createQueue", { repo, targetBranch: "main" });
    const { status, body } = await scenario.api("updateQueue", {
      repo,
      targetBranch: "main",
      state: "switching_modes",
    });
    expect(status).toBe(400);
    expect(body.errors).toEqual([{ path: "state", message: "must be one of running, paused, draining" }]);
  });

  it("lists enqueued PRs in queue order and refuses to delete a queue that holds them", async () => {
    await scenario.api("createQueue", { repo, targetBranch: "main", state: "paused" });
    await scenario.api("updateQueue", { repo, targetBranch: "main", state: "paused" });
    for (const number of [1, 2, 3]) {
      scenario.repo.openPullRequest({
        number,
        title: `PR ${number}`,
        author: "octocat",
        files: { [`f${number}`]: "x" },
      });
    }
    await scenario.api("submitPullRequest", { repo, targetBranch: "main", pr: { number: 1 } });
    await scenario.api("submitPullRequest", {
      repo,
      targetBranch: "main",
      pr: { number: "2" },
      priority: "HIGH",
    });
    await scenario.api("submitPullRequest", { repo, targetBranch: "main", pr: { number: 3 }, priority: 42 });

    const { body } = await scenario.api("getQueue", { repo, targetBranch: "main" });
    expect(body.enqueuedPullRequests.map((pr: { prNumber: number }) => pr.prNumber)).toEqual([2, 3, 1]);
    expect(body.enqueuedPullRequests[0]).toMatchObject({
      priorityName: "high",
      priorityValue: 10,
      prAuthor: "octocat",
    });
    expect(body.enqueuedPullRequests[0]).not.toHaveProperty("usedDefaultPriorityName");
    expect(body.enqueuedPullRequests[1]).toMatchObject({ priorityName: "42" });
    expect(body.enqueuedPullRequests[2]).toMatchObject({
      priorityName: "medium",
      usedDefaultPriorityName: "medium",
    });

    const refused = await scenario.api("deleteQueue", { repo, targetBranch: "main" });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("queue_not_empty");
  });

  it("deletes an empty queue, after which it is gone", async () => {
    await scenario.api("createQueue", { repo, targetBranch: "main" });
    const deleted = await scenario.api("deleteQueue", { repo, targetBranch: "main" });
    expect(deleted).toEqual({ status: 200, body: {} });
    expect((await scenario.api("getQueue", { repo, targetBranch: "main" })).status).toBe(404);
    expect((await scenario.api("deleteQueue", { repo, targetBranch: "main" })).status).toBe(404);
  });
});
