import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defaultQueueSettings } from "../../src/api/routes/queues.ts";
import { newId } from "../../src/store/ids.ts";
import { deleteQueueIfEmpty, findQueue, insertQueue, updateQueue } from "../../src/store/queues.ts";
import { findRepository, forgetInstallation, rememberRepository } from "../../src/store/repositories.ts";
import { insertSubmission, listEnqueued, type Submission } from "../../src/store/submissions.ts";
import { createTestStore, type TestStore, testDialects } from "../support/database.ts";

describe.each(testDialects)("repositories, queues and submissions on %s", (dialect) => {
  let store: TestStore;
  beforeEach(async () => {
    store = await createTestStore(dialect);
  });
  afterEach(async () => {
    await store.destroy();
  });

  const aRepository = () =>
    rememberRepository(
      store.db,
      { host: "github.com", owner: "Acme", name: "Widgets", installationId: 7 },
      1,
    );
  const aQueue = async (branch = "main") => {
    const repository = await aRepository();
    return (await insertQueue(
      store.db,
      { ...defaultQueueSettings, id: newId(), repositoryId: repository.id, branch, state: "running" },
      1,
    ))!;
  };
  const aSubmission = (queueId: string, overrides: Partial<Submission> = {}): Submission => ({
    id: newId(),
    queueId,
    prNumber: 1,
    prTitle: "Add a widget",
    prSha: "b".repeat(40),
    prBaseBranch: "main",
    prAuthor: "octocat",
    state: "pending",
    stateReason: null,
    stateDetail: null,
    stateChangedAt: 5,
    priorityValue: 100,
    usedDefaultPriority: true,
    skipTheLine: false,
    noBatch: false,
    submittedAt: 5,
    ...overrides,
  });

  it("finds a repository whatever the case, keeping GitHub's spelling", async () => {
    await aRepository();
    expect(
      await findRepository(store.db, { host: "GitHub.com", owner: "acme", name: "WIDGETS" }),
    ).toMatchObject({
      owner: "Acme",
      name: "Widgets",
      installationId: 7,
    });
  });

  it("remembering a repository again moves it to the new installation", async () => {
    const first = await aRepository();
    const again = await rememberRepository(
      store.db,
      { host: "github.com", owner: "acme", name: "widgets", installationId: 8 },
      2,
    );
    expect(again).toEqual({ ...first, owner: "acme", name: "widgets", installationId: 8 });
  });

  it("forgetting an installation keeps the repository and its queues", async () => {
    const queue = await aQueue();
    await forgetInstallation(store.db, 7, undefined, 3);
    expect(
      (await findRepository(store.db, { host: "github.com", owner: "acme", name: "widgets" }))
        ?.installationId,
    ).toBeNull();
    expect(await findQueue(store.db, queue.repositoryId, "main")).toBeDefined();
  });

  it("round-trips every queue setting", async () => {
    const queue = await aQueue();
    await updateQueue(
      store.db,
      queue.id,
      {
        mode: "parallel",
        concurrency: 4,
        canOptimisticallyMerge: true,
        requiredStatuses: ["ci/test", "lint"],
        bisectionConcurrency: 2,
        mergeMethod: "rebase",
        state: "paused",
      },
      9,
    );
    expect(await findQueue(store.db, queue.repositoryId, "MAIN")).toEqual({
      ...queue,
      mode: "parallel",
      concurrency: 4,
      canOptimisticallyMerge: true,
      requiredStatuses: ["ci/test", "lint"],
      bisectionConcurrency: 2,
      mergeMethod: "rebase",
      state: "paused",
      updatedAt: 9,
    });
  });

  it("refuses a second queue for the same branch in another case", async () => {
    const queue = await aQueue("main");
    const second = await insertQueue(
      store.db,
      {
        ...defaultQueueSettings,
        id: newId(),
        repositoryId: queue.repositoryId,
        branch: "Main",
        state: "running",
      },
      2,
    );
    expect(second).toBeUndefined();
  });

  it("deletes a queue only when no submission is active", async () => {
    const queue = await aQueue();
    await insertSubmission(store.db, aSubmission(queue.id, { state: "merged" }));
    const active = aSubmission(queue.id, { prNumber: 2, state: "pending_failure" });
    await insertSubmission(store.db, active);
    expect(await deleteQueueIfEmpty(store.db, queue.id)).toBe(false);
    await store.db
      .updateTable("pull_request_submissions")
      .set({ state: "cancelled" })
      .where("id", "=", active.id)
      .execute();
    expect(await deleteQueueIfEmpty(store.db, queue.id)).toBe(true);
    expect(await findQueue(store.db, queue.repositoryId, "main")).toBeUndefined();
  });

  it("lists active submissions by priority then submission time", async () => {
    const queue = await aQueue();
    await insertSubmission(store.db, aSubmission(queue.id, { prNumber: 1, submittedAt: 1 }));
    await insertSubmission(
      store.db,
      aSubmission(queue.id, { prNumber: 2, submittedAt: 2, priorityValue: 0 }),
    );
    await insertSubmission(store.db, aSubmission(queue.id, { prNumber: 3, submittedAt: 0, state: "failed" }));
    await insertSubmission(store.db, aSubmission(queue.id, { prNumber: 4, submittedAt: 3 }));
    const listed = await listEnqueued(store.db, queue.id);
    expect(listed.map((s) => s.prNumber)).toEqual([2, 1, 4]);
    expect(listed[1]).toEqual(aSubmission(queue.id, { id: listed[1]!.id, prNumber: 1, submittedAt: 1 }));
  });
});
