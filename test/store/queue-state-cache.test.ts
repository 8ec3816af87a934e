// Each process keeps the queue states it last loaded or saved, parsed. Another replica's step, or a step of its own
// that was rolled back, must never be hidden by them: a step always starts from the committed state. The commits of
// the runs in flight in them route CI webhooks with no read; a run another replica started, or one that ended, is
// routed by the database.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { QueueState } from "../../src/queue/index.ts";
import { queueDirectoryOn } from "../../src/edge-ports.ts";
import { openDatabase, type Store } from "../../src/store/database.ts";
import { createTestStore, type TestStore, testDialects } from "../support/database.ts";
import { countedStatements } from "../support/counted-statements.ts";
import { anOutboxQueue } from "../support/outbox.ts";
import { branchShaOf, QueueScenario, T0 } from "../support/queue-factories.ts";

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

  /**
   * Steps the queue through `on`'s storage, in one transaction, to the state `change` makes of the saved one (on a
   * queue requiring the scenario's `ci` status, so that its reports decide the runs); `thenFail` rolls it back.
   */
  const stepOn = (on: Store, change: (scenario: QueueScenario) => void, thenFail = false) =>
    on.inQueueTransaction(queueId, async (queue) => {
      const stored = (await queue.loadQueueState(queueId))!;
      const { settings } = stored.state;
      const scenario = new QueueScenario({
        ...stored.state,
        settings: { ...settings, requiredStatuses: ["ci"] },
      });
      scenario.now = T0;
      change(scenario);
      await queue.saveQueueStep({ stored, next: scenario.state, commands: [], now: T0, prUrl: String });
      if (thenFail) throw new Error("the transaction fails after the save");
      return scenario.state;
    });
  const submit = (on: Store, prNumber: number, thenFail = false) =>
    stepOn(on, (scenario) => scenario.submit(prNumber), thenFail);
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

  const runCommit = (state: QueueState) => branchShaOf(Object.values(state.runs)[0]!.id);

  /** The directory on `on`, counting the statements it sends. */
  function countedDirectory(on: Store) {
    const { db, counter } = countedStatements(on.db);
    return { directory: queueDirectoryOn({ ...on, db }), counter };
  }

  it("answers a commit of a run in flight that this process stepped without a read", async () => {
    const state = await stepOn(store, (scenario) => scenario.submit(1).createBranches());
    const { directory, counter } = countedDirectory(store);

    expect(await directory.commitConcerns(runCommit(state))).toEqual({
      testing: [queueId],
      notReady: [],
      queued: [],
    });
    expect(counter.statements).toBe(0);
  });

  it("reads the database for a run another replica started, and for one that ended", async () => {
    const state = await stepOn(replica, (scenario) => scenario.submit(1).createBranches());
    const commit = runCommit(state);
    const { directory, counter } = countedDirectory(store);

    expect((await directory.commitConcerns(commit)).testing).toEqual([queueId]);
    expect(counter.statements).toBe(1);

    await stepOn(store, (scenario) => scenario.pass(1));
    expect((await directory.commitConcerns(commit)).testing).toEqual([]);
    expect(counter.statements).toBe(2);
  });
});
