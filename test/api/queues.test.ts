import nock from "nock";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { newId } from "../../src/store/ids.ts";
import { insertSubmission } from "../../src/store/submissions.ts";
import { type TestServer, startTestServer, tokenFor } from "../support/api-server.ts";
import { createTestStore, type TestStore, testDialects } from "../support/database.ts";

const repo = { host: "github.com", owner: "acme", name: "widgets" };

/** GitHub answers the app's installation look-up for acme/widgets once. */
function installedOnWidgets(installationId = 4242) {
  return nock("https://api.github.com")
    .get("/repos/acme/widgets/installation")
    .reply(200, { id: installationId, account: { login: "acme" } });
}

describe.each(testDialects)("queue administration over HTTP on %s", (dialect) => {
  let store: TestStore;
  let server: TestServer;
  let token: string;

  beforeAll(() => nock.disableNetConnect());
  afterAll(() => nock.enableNetConnect());
  beforeEach(async () => {
    nock.enableNetConnect("127.0.0.1");
    store = await createTestStore(dialect);
    server = await startTestServer(store);
    token = await tokenFor(store, "acme");
  });
  afterEach(async () => {
    const pending = nock.pendingMocks();
    nock.cleanAll();
    await server.close();
    await store.destroy();
    expect(pending).toEqual([]);
  });

  it("creates a queue with every default of contract 4", async () => {
    installedOnWidgets();
    const response = await server.post("createQueue", { repo, targetBranch: "main" }, token);
    expect(response.status).toBe(200);
    expect((await response.json()) as any).toEqual({
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
      enqueuedPullRequests: [],
    });
  });

  it("creates a queue with the settings of the request, accepting enums in any case", async () => {
    installedOnWidgets();
    const response = await server.post(
      "createQueue",
      {
        repo,
        targetBranch: "release/1.x",
        concurrency: 3,
        mode: "PARALLEL",
        mergeMethod: "Merge_Commit",
        requiredStatuses: ["ci/build", "ci/test", "ci/build"],
        pendingFailureDepth: 0,
        batch: true,
        unknownField: "ignored",
      },
      token,
    );
    expect(response.status).toBe(200);
    const queue = (await response.json()) as any;
    expect(queue).toMatchObject({
      branch: "release/1.x",
      concurrency: 3,
      bisectionConcurrency: 3,
      mode: "parallel",
      mergeMethod: "merge_commit",
      requiredStatuses: ["ci/build", "ci/test"],
      batch: true,
    });
    expect(queue).not.toHaveProperty("unknownField");
  });

  it("remembers the installation so later requests do not ask GitHub again", async () => {
    installedOnWidgets();
    expect((await server.post("createQueue", { repo, targetBranch: "main" }, token)).status).toBe(200);
    const again = await server.post(
      "getQueue",
      { repo: { ...repo, owner: "ACME" }, targetBranch: "MAIN" },
      token,
    );
    expect(again.status).toBe(200);
    expect(((await again.json()) as any).branch).toBe("main");
  });

  it("refuses a second queue for the same branch with 409 queue_exists", async () => {
    installedOnWidgets();
    await server.post("createQueue", { repo, targetBranch: "main" }, token);
    const duplicate = await server.post("createQueue", { repo, targetBranch: "Main" }, token);
    expect(duplicate.status).toBe(409);
    expect(((await duplicate.json()) as any).code).toBe("queue_exists");
  });

  it("answers 404 repo_not_installed when the app is not on the repository", async () => {
    nock("https://api.github.com")
      .get("/repos/acme/widgets/installation")
      .reply(404, { message: "Not Found" });
    const response = await server.post("createQueue", { repo, targetBranch: "main" }, token);
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toContain("application/problem+json");
    expect((await response.json()) as any).toMatchObject({
      status: 404,
      code: "repo_not_installed",
      type: "about:blank",
    });
  });

  it("answers 403 for a repository outside the token's organization, without asking GitHub", async () => {
    const response = await server.post(
      "getQueue",
      { repo: { ...repo, owner: "other-org" }, targetBranch: "main" },
      token,
    );
    expect(response.status).toBe(403);
    expect(((await response.json()) as any).code).toBe("forbidden");
  });

  it("covers the extra owners a token's organization was given", async () => {
    const multiOwner = await tokenFor(store, "platform", ["acme", "acme-labs"]);
    installedOnWidgets();
    expect((await server.post("createQueue", { repo, targetBranch: "main" }, multiOwner)).status).toBe(200);
  });

  it("answers 400 unsupported_host for another GitHub host", async () => {
    const response = await server.post(
      "getQueue",
      { repo: { ...repo, host: "gitlab.com" }, targetBranch: "main" },
      token,
    );
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).code).toBe("unsupported_host");
  });

  it("answers 404 queue_not_found for a branch without a queue", async () => {
    installedOnWidgets();
    const response = await server.post("getQueue", { repo, targetBranch: "develop" }, token);
    expect(response.status).toBe(404);
    expect((await response.json()) as any).toMatchObject({
      code: "queue_not_found",
      detail: "no merge queue for branch develop in github.com/acme/widgets",
    });
  });

  it("updates settings and state, and removes the required statuses override", async () => {
    installedOnWidgets();
    await server.post("createQueue", { repo, targetBranch: "main", requiredStatuses: ["ci"] }, token);
    const updated = await server.post(
      "updateQueue",
      { repo, targetBranch: "main", state: "DRAINING", concurrency: 5, bisectionConcurrency: 2 },
      token,
    );
    expect(updated.status).toBe(200);
    expect((await updated.json()) as any).toMatchObject({
      state: "draining",
      concurrency: 5,
      bisectionConcurrency: 2,
      requiredStatuses: ["ci"],
    });
    const cleared = await server.post(
      "updateQueue",
      { repo, targetBranch: "main", deleteRequiredStatuses: true },
      token,
    );
    expect(((await cleared.json()) as any).requiredStatuses).toBeNull();
    const read = await server.post("getQueue", { repo, targetBranch: "main" }, token);
    expect((await read.json()) as any).toMatchObject({
      state: "draining",
      concurrency: 5,
      requiredStatuses: null,
    });
  });

  it("refuses to set switching_modes, which only the service sets", async () => {
    installedOnWidgets();
    await server.post("createQueue", { repo, targetBranch: "main" }, token);
    const response = await server.post(
      "updateQueue",
      { repo, targetBranch: "main", state: "switching_modes" },
      token,
    );
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).errors).toEqual([
      { path: "state", message: "must be one of running, paused, draining" },
    ]);
  });

  it("lists enqueued PRs in queue order and refuses to delete a queue that holds them", async () => {
    installedOnWidgets();
    await server.post("createQueue", { repo, targetBranch: "main" }, token);
    const queue = await store.db.selectFrom("queues").select("id").executeTakeFirstOrThrow();
    const submission = (prNumber: number, priorityValue: number, submittedAt: number, state = "pending") => ({
      id: newId(),
      queueId: queue.id,
      prNumber,
      prTitle: `PR ${prNumber}`,
      prSha: "a".repeat(40),
      prBaseBranch: "main",
      prAuthor: "octocat",
      state: state as "pending",
      stateReason: null,
      stateDetail: null,
      stateChangedAt: Date.parse("2026-11-21T10:00:00.000Z"),
      priorityValue,
      usedDefaultPriority: priorityValue === 100,
      skipTheLine: false,
      noBatch: false,
      submittedAt,
    });
    await insertSubmission(store.db, submission(1, 100, 1));
    await insertSubmission(store.db, submission(2, 10, 2));
    await insertSubmission(store.db, submission(3, 42, 3, "testing"));
    await insertSubmission(store.db, submission(4, 100, 0, "merged"));

    const read = (await (await server.post("getQueue", { repo, targetBranch: "main" }, token)).json()) as any;
    expect(read.enqueuedPullRequests.map((pr: { prNumber: number }) => pr.prNumber)).toEqual([2, 3, 1]);
    expect(read.enqueuedPullRequests[0]).toMatchObject({ priorityName: "high", priorityValue: 10 });
    expect(read.enqueuedPullRequests[0]).not.toHaveProperty("usedDefaultPriorityName");
    expect(read.enqueuedPullRequests[1]).toMatchObject({ priorityName: "42" });
    expect(read.enqueuedPullRequests[2]).toMatchObject({
      priorityName: "medium",
      usedDefaultPriorityName: "medium",
      stateChangedAt: "2026-11-21T10:00:00.000Z",
    });

    const refused = await server.post("deleteQueue", { repo, targetBranch: "main" }, token);
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as any).code).toBe("queue_not_empty");
  });

  it("deletes an empty queue, after which it is gone", async () => {
    installedOnWidgets();
    await server.post("createQueue", { repo, targetBranch: "main" }, token);
    const deleted = await server.post("deleteQueue", { repo, targetBranch: "main" }, token);
    expect(deleted.status).toBe(200);
    expect((await deleted.json()) as any).toEqual({});
    expect((await server.post("getQueue", { repo, targetBranch: "main" }, token)).status).toBe(404);
    expect((await server.post("deleteQueue", { repo, targetBranch: "main" }, token)).status).toBe(404);
  });

  it("asks GitHub again for a repository whose installation was removed", async () => {
    installedOnWidgets(7);
    await server.post("createQueue", { repo, targetBranch: "main" }, token);
    await store.db.updateTable("repositories").set({ installation_id: null }).execute();
    nock("https://api.github.com")
      .get("/repos/acme/widgets/installation")
      .reply(404, { message: "Not Found" });
    const response = await server.post("getQueue", { repo, targetBranch: "main" }, token);
    expect(((await response.json()) as any).code).toBe("repo_not_installed");
  });
});
