// The reads of a queue (getQueue, getSubmittedPullRequest, listPullRequests) answer from the state each process keeps
// parsed: a step saved by another replica must show in the very next read.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { step } from "../../src/queue/index.ts";
import { openDatabase, type Store } from "../../src/store/database.ts";
import { findQueue } from "../../src/store/queues.ts";
import { testDialects } from "../support/database.ts";
import { aPr } from "../support/queue-factories.ts";
import { repoRef as repo, type Scenario, startScenario } from "../support/queue-scenario.ts";

/** Submits a PR as another replica on the same database would: its own connection, its own step. */
async function submitOnAnotherReplica(replica: Store, queueId: string, prNumber: number, now: number) {
  await replica.inQueueTransaction(queueId, async (queue) => {
    const stored = await queue.loadQueueState(queueId);
    if (stored === undefined) throw new Error("no queue state");
    const next = step(stored.state, aPr(prNumber), now).state;
    await queue.saveQueueStep({ stored, next, commands: [], now, prUrl: String });
  });
}

describe.each(testDialects)("queue reads across replicas on %s", (dialect) => {
  let s: Scenario;
  let replica: Store;
  let queueId: string;
  beforeEach(async () => {
    s = await startScenario({ dialect });
    await s.api("createQueue", { repo, targetBranch: "main" });
    const repository = await s.store.db.selectFrom("repositories").select("id").executeTakeFirstOrThrow();
    queueId = (await findQueue(s.store.db, repository.id, "main"))!.id;
    replica = openDatabase(s.store.databaseUrl);
  });
  afterEach(async () => {
    await replica.close();
    await s.close();
  });

  it("shows a PR another replica queued in the next getQueue, getSubmittedPullRequest and listPullRequests", async () => {
    const target = { repo, targetBranch: "main" };
    expect((await s.api("getQueue", target)).body.enqueuedPullRequests).toEqual([]);
    expect((await s.api("listPullRequests", target)).body.pullRequests).toEqual([]);
    expect((await s.api("getSubmittedPullRequest", { ...target, pr: { number: 7 } })).status).toBe(404);

    await submitOnAnotherReplica(replica, queueId, 7, s.clock.now);

    const queue = await s.api("getQueue", target);
    expect(queue.body.enqueuedPullRequests.map((pr: { prNumber: number }) => pr.prNumber)).toEqual([7]);
    const listed = await s.api("listPullRequests", target);
    expect(listed.body.pullRequests.map((pr: { prNumber: number }) => pr.prNumber)).toEqual([7]);
    const record = await s.api("getSubmittedPullRequest", { ...target, pr: { number: 7 } });
    expect(record.status).toBe(200);
    expect(record.body).toMatchObject({ prNumber: 7, state: "testing", isCurrentlySubmittedToQueue: true });
  });

  it("answers every read of an unchanged queue with the same bytes", async () => {
    await submitOnAnotherReplica(replica, queueId, 7, s.clock.now);
    const target = { repo, targetBranch: "main" };
    for (const [path, body] of [
      ["getQueue", target],
      ["listPullRequests", target],
      ["getSubmittedPullRequest", { ...target, pr: { number: 7 } }],
    ] as const) {
      const first = await s.server.post(path, body, s.token);
      const second = await s.server.post(path, body, s.token);
      expect(second.headers.get("content-type")).toBe("application/json; charset=utf-8");
      expect(first.headers.get("content-type")).toBe(second.headers.get("content-type"));
      expect(await second.text()).toBe(await first.text());
    }
  });
});
