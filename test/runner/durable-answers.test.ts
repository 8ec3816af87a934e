// Storage may commit a step before it is durable (on PostgreSQL the commit does not wait for the write-ahead log's
// flush, so that the queue's lock is free sooner). Nobody may hear of a step before it is durable: not the caller
// (a webhook answered 200 is never delivered again), not the outbox worker (a command run on GitHub cannot be
// taken back). Meanwhile the queue's next step need not wait.
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import type { QueueStorage } from "../../src/ports/queue-persistence.ts";
import { QueueRunner } from "../../src/runner/queue-runner.ts";
import { createTestStore, type TestStore } from "../support/database.ts";
import { anOutboxQueue } from "../support/outbox.ts";
import { aPr, T0 } from "../support/queue-factories.ts";

const stores: TestStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.destroy()));
});

/** A store whose steps become durable only when the test says so, or never (`fail`). */
async function aStoreWithSlowDisk() {
  const store = await createTestStore("sqlite");
  stores.push(store);
  let flush!: () => void;
  let fail!: (error: Error) => void;
  const flushed = new Promise<void>((resolve, reject) => {
    flush = resolve;
    fail = reject;
  });
  // Unhandled until a step asks for it.
  flushed.catch(() => undefined);
  const slow: QueueStorage = { ...store, durable: () => flushed };
  const commandsSaved: string[] = [];
  const runner = new QueueRunner({
    store: slow,
    clock: () => T0,
    log: pino({ level: "silent" }),
    prUrl: (_, prNumber) => `https://github.com/acme/widgets/pull/${prNumber}`,
    onCommandsSaved: (queueId) => commandsSaved.push(queueId),
  });
  return { store, runner, flush, fail, commandsSaved, queueId: await anOutboxQueue(store, "widgets") };
}

/** Resolves once the saved state holds the PR: its step committed. */
async function committed(store: TestStore, queueId: string, prNumber: number): Promise<void> {
  for (;;) {
    if ((await store.loadQueueState(queueId))?.state.prs[prNumber] !== undefined) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("a step's answer", () => {
  it("waits until the step is durable, while the queue's next step commits meanwhile", async () => {
    const { store, runner, flush, commandsSaved, queueId } = await aStoreWithSlowDisk();
    let answered = false;
    const first = runner.dispatch(queueId, [aPr(1)]).then((state) => {
      answered = true;
      return state;
    });
    await committed(store, queueId, 1);

    const second = runner.dispatch(queueId, [aPr(2)]);
    await committed(store, queueId, 2);
    expect(answered).toBe(false);
    expect(commandsSaved).toEqual([]);

    flush();
    expect(Object.keys((await first)!.prs)).toEqual(["1"]);
    expect(Object.keys((await second)!.prs)).toEqual(["1", "2"]);
    // Submitting a PR tests it: the worker hears of the commands once they are durable.
    expect(commandsSaved.length).toBeGreaterThan(0);
  });

  it("is the failure when the step cannot be made durable, and no command is run for it", async () => {
    const { store, runner, fail, commandsSaved, queueId } = await aStoreWithSlowDisk();
    const answer = runner.dispatch(queueId, [aPr(1)]);
    await committed(store, queueId, 1);

    fail(new Error("the database went away"));
    await expect(answer).rejects.toThrow("the database went away");
    expect(commandsSaved).toEqual([]);
  });
});
