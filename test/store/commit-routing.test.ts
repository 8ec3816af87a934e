// Which queues a CI webhook's commit concerns: a run's commit that this process stepped is answered from the
// states it keeps, with no read; a run another replica started, or one that ended, is answered by the database.
import type { Kysely } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { QueueState } from "../../src/queue/index.ts";
import { queueDirectoryOn } from "../../src/edge-ports.ts";
import { openDatabase, type Store } from "../../src/store/database.ts";
import type { Database } from "../../src/store/schema.ts";
import { createTestStore, type TestStore, testDialects } from "../support/database.ts";
import { anOutboxQueue } from "../support/outbox.ts";
import { branchShaOf, QueueScenario, T0 } from "../support/queue-factories.ts";

describe.each(testDialects)("commits routed to their queues on %s", (dialect) => {
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

  /** Steps the queue through `on`'s storage to the state `change` makes of the saved one. */
  const stepOn = (on: Store, change: (scenario: QueueScenario) => void) =>
    on.inQueueTransaction(queueId, async (queue) => {
      const stored = (await queue.loadQueueState(queueId))!;
      // A queue requiring the scenario's `ci` status, so that its reports decide the runs.
      const { settings } = stored.state;
      const scenario = new QueueScenario({
        ...stored.state,
        settings: { ...settings, requiredStatuses: ["ci"] },
      });
      scenario.now = T0;
      change(scenario);
      await queue.saveQueueStep({ stored, next: scenario.state, commands: [], now: T0, prUrl: String });
      return scenario.state;
    });
  const runCommit = (state: QueueState) => branchShaOf(Object.values(state.runs)[0]!.id);

  /** The directory on `on`, counting the statements it sends. */
  function countedDirectory(on: Store) {
    const counter = { statements: 0 };
    const db = new Proxy(on.db, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (property !== "executeQuery") return typeof value === "function" ? value.bind(target) : value;
        return (query: never) => {
          counter.statements++;
          return target.executeQuery(query);
        };
      },
    }) as Kysely<Database>;
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
