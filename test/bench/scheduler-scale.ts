// The scheduler's timer at scale for npm run bench:queue: 1,000 queues holding 20,000 queued PRs, of which a few
// have runs in flight. What a tick and a poll cost to find the queues to look at should follow those few.
import { performance } from "node:perf_hooks";
import { type QueueState, step } from "../../src/queue/index.ts";
import { recordRepository } from "../../src/store/repositories.ts";
import { createTestStore, type TestStore } from "../support/database.ts";
import { aPr, aQueue, T0 } from "../support/queue-factories.ts";

const queueCount = 1000;
const prsPerQueue = 20;
const activeQueues = 10;

/** A queue with its PRs queued: running ones test the first, paused ones hold them all. */
function queueState(queueId: string, running: boolean): QueueState {
  let state: QueueState = { ...aQueue({ concurrency: 1 }, running ? "running" : "paused"), queueId };
  for (let n = 1; n <= prsPerQueue; n++) state = step(state, aPr(n), T0 + n).state;
  return state;
}

async function fill(store: TestStore): Promise<void> {
  const repository = await recordRepository(store.db, { host: "github.com", owner: "acme", name: "big" }, T0);
  for (let q = 0; q < queueCount; q++) {
    const id = `queue-${q}`;
    const state = queueState(id, q < activeQueues);
    const queue = { id, repositoryId: repository.id, branch: `branch-${q}`, settings: state.settings };
    await store.createQueue(queue, state, T0);
    // The scheduler's columns as a step leaves them.
    await store.inQueueTransaction(id, async (trx) => {
      const stored = (await trx.loadQueueState(id))!;
      await trx.saveQueueStep({ stored, next: stored.state, commands: [], now: T0, prUrl: String });
    });
  }
}

async function meanMs(times: number, action: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 5; i++) await action();
  const started = performance.now();
  for (let i = 0; i < times; i++) await action();
  return (performance.now() - started) / times;
}

export async function benchSchedulerScale(): Promise<string> {
  const store = await createTestStore("sqlite");
  try {
    await fill(store);
    const now = T0 + 60_000;
    const attention = await store.queuesNeedingAttention(now);
    const found = await meanMs(50, () => store.queuesNeedingAttention(now));
    const due = await meanMs(50, () => store.queuesWithDueCommands(now));
    return `scheduler pass with ${queueCount} queues / ${queueCount * prsPerQueue} queued PRs (${attention.length} needing attention): queues needing attention ${found.toFixed(2)} ms, queues with due commands ${due.toFixed(2)} ms`;
  } finally {
    await store.destroy();
  }
}
