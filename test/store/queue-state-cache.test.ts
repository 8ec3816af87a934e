// Each process keeps the queue states it last loaded or saved, parsed. Another replica's step, or a step of its own
// that was rolled back, must never be hidden by them: a step always starts from the committed state.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type QueueState, step } from "../../src/queue/index.ts";
import { openDatabase, type Store } from "../../src/store/database.ts";
import { createTestStore, type TestStore, testDialects } from "../support/database.ts";
import { anOutboxQueue } from "../support/outbox.ts";
import { aPr, T0 } from "../support/queue-factories.ts";

describe.each(testDialects)("queue states kept by each replica on %s", (dialect) => {
  let store: TestStore;
  let replica: Store;
  let queueId: string;
  beforeEach(async () => {
    store = await createTestStore(dialect);
    replica = openDatabase(store.databaseUrl);
    queueId = await anOutboxQueue(store, "widgets");
  });
  afterEach(async () => {
    await replica.close();
    await store.destroy();
  });

  /** Submits PR `prNumber` through `on`'s storage, in one transaction; `thenFail` rolls it back. */
  const submit = (on: Store, prNumber: number, thenFail = false) =>
    on.inQueueTransaction(queueId, async (queue) => {
      const stored = (await queue.loadQueueState(queueId))!;
      const next = step(stored.state, aPr(prNumber), T0).state;
      await queue.saveQueueStep({ stored, next, commands: [], now: T0, prUrl: String });
      if (thenFail) throw new Error("the transaction fails after the save");
    });
  const prsSeenBy = async (on: Store) =>
    Object.keys(((await on.loadQueueState(queueId))?.state as QueueState).prs);

  it("a step saved by another replica is what the next load returns", async () => {
    await submit(store, 1);
    expect(await prsSeenBy(store)).toEqual(["1"]);
    await submit(replica, 2);
    expect(await prsSeenBy(store)).toEqual(["1", "2"]);
    await submit(store, 3);
    expect(await prsSeenBy(replica)).toEqual(["1", "2", "3"]);
  });

  it("a step rolled back is not taken for the version another replica then saves", async () => {
    await expect(submit(store, 1, true)).rejects.toThrow("fails after the save");
    await submit(replica, 2);
    expect(await prsSeenBy(store)).toEqual(["2"]);
  });
});
