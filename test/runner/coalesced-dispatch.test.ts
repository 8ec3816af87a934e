// Dispatches that arrive for a queue while one of its steps runs are stepped and committed together. Nothing a user
// sees may change: the state, the commands in the outbox, and the records the pages and metrics read must be the
// same as when each dispatch is stepped and committed on its own.
import fc from "fast-check";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import type { QueueEvent, QueueSettings } from "../../src/queue/index.ts";
import type { QueueStorage } from "../../src/ports/queue-persistence.ts";
import { QueueRunner } from "../../src/runner/queue-runner.ts";
import { insertQueueState } from "../../src/store/queue-states.ts";
import { insertQueue } from "../../src/store/queues.ts";
import { rememberRepository } from "../../src/store/repositories.ts";
import { createTestStore, type TestStore } from "../support/database.ts";
import { anOutboxQueue } from "../support/outbox.ts";
import { aPr, T0 } from "../support/queue-factories.ts";
import { action, initialSettings } from "../queue/actions.ts";
import { type Action, Simulation } from "../queue/simulation.ts";

interface Received {
  event: QueueEvent;
  now: number;
  deliveryId: string;
}

/** A simulated queue's life, as the events the service receives and when. */
class RecordingSimulation extends Simulation {
  readonly log: Received[] = [];

  override receive(event: QueueEvent): void {
    this.log.push({ event, now: this.now, deliveryId: `delivery-${this.log.length}` });
    super.receive(event);
  }
}

function receivedEvents(settings: Partial<QueueSettings>, actions: readonly Action[]): Received[] {
  const simulation = new RecordingSimulation(settings);
  for (const next of actions) simulation.apply(next);
  // GitHub delivers some webhooks twice: the copy must change nothing, grouped with the original or not.
  return simulation.log.flatMap((received, index) => (index % 5 === 4 ? [received, received] : [received]));
}

const stores: TestStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.destroy()));
});

/** A store holding the simulation's queue, and a runner on it whose clock reads the times events were received. */
async function aRunner(settings: Partial<QueueSettings>, received: readonly Received[]) {
  const store = await createTestStore("sqlite");
  stores.push(store);
  const initial = new Simulation(settings).state;
  const repository = await rememberRepository(
    store.db,
    { host: "github.com", owner: "acme", name: "widgets", installationId: 7 },
    0,
  );
  await store.db.transaction().execute(async (trx) => {
    const queue = {
      id: initial.queueId,
      repositoryId: repository.id,
      branch: "main",
      settings: initial.settings,
    };
    await insertQueue(trx, queue, 0);
    await insertQueueState(trx, initial, 0);
  });
  // The runner reads the clock once per dispatch, in the order the dispatches are stepped.
  let reading = 0;
  const runner = new QueueRunner({
    store,
    clock: () => received[reading++]!.now,
    log: pino({ level: "silent" }),
    prUrl: (_, prNumber) => `https://github.com/acme/widgets/pull/${prNumber}`,
    onCommandsSaved: () => {},
  });
  return { store, runner };
}

/** What a user can see of the queue: its state, its outbox, and the records kept for pages and metrics. */
async function visible(store: TestStore) {
  const db = store.db;
  const { state } = (await store.loadQueueState("q"))!;
  const rows = (table: "outbox_commands" | "test_runs" | "pull_request_submissions", order: string) =>
    db
      .selectFrom(table)
      .selectAll()
      .orderBy(order as never)
      .execute();
  // Row ids and the repository's are drawn at random in each store.
  const withoutIds = (rows: Record<string, unknown>[]) =>
    rows.map(({ id: _id, repository_id: _repository, ...rest }) => rest);
  return {
    state,
    outbox: withoutIds(await rows("outbox_commands", "seq")),
    runs: await rows("test_runs", "id"),
    submissions: await rows("pull_request_submissions", "id"),
    transitions: await db
      .selectFrom("pull_request_transitions")
      .selectAll()
      .orderBy("submission_id")
      .orderBy("seq")
      .execute(),
    counters: await db
      .selectFrom("queue_metric_counters")
      .selectAll()
      .orderBy("metric")
      .orderBy("label")
      .execute(),
    queue: withoutIds([await db.selectFrom("queues").selectAll().executeTakeFirstOrThrow()]),
  };
}

/** A runner whose clock stands still. */
function runnerAtT0(store: QueueStorage): QueueRunner {
  return new QueueRunner({
    store,
    clock: () => T0,
    log: pino({ level: "silent" }),
    prUrl: (_, prNumber) => `https://github.com/acme/widgets/pull/${prNumber}`,
    onCommandsSaved: () => {},
  });
}

/** How many steps the queue's state row took: one per transaction that changed something. */
async function savedSteps(store: TestStore): Promise<number> {
  return (await store.loadQueueState("q"))!.version;
}

describe("dispatches grouped in one transaction", () => {
  it("reach the state, commands and records that one dispatch at a time reaches", async () => {
    let savedTransactions = 0;
    await fc.assert(
      fc.asyncProperty(
        initialSettings,
        fc.array(action, { minLength: 20, maxLength: 100 }),
        fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 10 }),
        async (settings, actions, groupSizes) => {
          const received = receivedEvents(settings, actions);
          const dispatch = (runner: QueueRunner, { event, deliveryId }: Received) =>
            runner.dispatch("q", [event], { delivery: { id: deliveryId, event: "status" } });
          const alone = await aRunner(settings, received);
          for (const next of received) await dispatch(alone.runner, next);
          // Several arrive together: all but the first of them wait for the queue's lock.
          const grouped = await aRunner(settings, received);
          for (let start = 0, chunk = 0; start < received.length; chunk++) {
            const end = start + groupSizes[chunk % groupSizes.length]!;
            await Promise.all(received.slice(start, end).map((next) => dispatch(grouped.runner, next)));
            start = end;
          }
          expect(await visible(grouped.store)).toEqual(await visible(alone.store));
          savedTransactions += (await savedSteps(alone.store)) - (await savedSteps(grouped.store));
          await Promise.all(stores.splice(0).map((store) => store.destroy()));
        },
      ),
      { numRuns: 15 },
    );
    // The property says something only if dispatches were in fact grouped.
    expect(savedTransactions).toBeGreaterThan(0);
  }, 120_000);

  it("include a dispatch received in the next turn of the event loop, as a webhook read meanwhile is", async () => {
    const store = await createTestStore("sqlite");
    stores.push(store);
    const queueId = await anOutboxQueue(store, "widgets");
    const runner = runnerAtT0(store);
    const before = (await store.loadQueueState(queueId))!.version;

    const first = runner.dispatch(queueId, [aPr(1)]);
    const second = new Promise((resolve) => setImmediate(() => resolve(runner.dispatch(queueId, [aPr(2)]))));
    await Promise.all([first, second]);

    const saved = (await store.loadQueueState(queueId))!;
    expect(Object.keys(saved.state.prs)).toEqual(["1", "2"]);
    expect(saved.version).toBe(before + 1);
  });

  it("fail one by one: a dispatch whose transaction fails does not fail those it was grouped with", async () => {
    const store = await createTestStore("sqlite");
    stores.push(store);
    const queueId = await anOutboxQueue(store, "widgets");
    // The database refuses whatever records the delivery "refused", as a full disk would.
    const failing: QueueStorage = {
      ...store,
      inQueueTransaction: (id, work) =>
        store.inQueueTransaction(id, (queue) =>
          work({
            ...queue,
            recordDeliveries: async (deliveries) => {
              if (deliveries.some(({ key }) => key.startsWith("refused"))) throw new Error("disk full");
              return queue.recordDeliveries(deliveries);
            },
          }),
        ),
    };
    const runner = runnerAtT0(failing);
    const submit = (prNumber: number, deliveryId: string) =>
      runner.dispatch(queueId, [aPr(prNumber)], { delivery: { id: deliveryId, event: "pull_request" } });

    const results = await Promise.allSettled([submit(1, "first"), submit(2, "refused"), submit(3, "third")]);

    expect(results.map((result) => result.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(Object.keys((await store.loadQueueState(queueId))!.state.prs)).toEqual(["1", "3"]);
  });
});
