// The scheduler's timer at scale for npm run bench:queue: 1,000 queues holding 20,000 queued PRs, of which a few
// have runs in flight. What a tick and a poll cost to find the queues to look at should follow those few.
import { performance } from "node:perf_hooks";
import { recordRepository } from "../../src/store/repositories.ts";
import { createTestStore } from "../support/database.ts";
import { T0 } from "../support/queue-factories.ts";
import { fillQueues, prsPerQueue, queueCount } from "./queues-at-scale.ts";

const activeQueues = 10;

async function meanMs(times: number, action: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 5; i++) await action();
  const started = performance.now();
  for (let i = 0; i < times; i++) await action();
  return (performance.now() - started) / times;
}

export async function benchSchedulerScale(): Promise<string> {
  const store = await createTestStore("sqlite");
  try {
    const repository = await recordRepository(
      store.db,
      { host: "github.com", owner: "acme", name: "big" },
      T0,
    );
    await fillQueues(store, repository, (queue) => queue < activeQueues);
    const now = T0 + 60_000;
    const attention = await store.queuesNeedingAttention(now);
    const found = await meanMs(50, () => store.queuesNeedingAttention(now));
    const due = await meanMs(50, () => store.queuesWithDueCommands(now));
    return `scheduler pass with ${queueCount} queues / ${queueCount * prsPerQueue} queued PRs (${attention.length} needing attention): queues needing attention ${found.toFixed(2)} ms, queues with due commands ${due.toFixed(2)} ms`;
  } finally {
    await store.destroy();
  }
}
