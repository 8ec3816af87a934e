// One database holding 1,000 queues with 20,000 queued PRs, for the figures at scale of npm run bench:queue (the
// scheduler) and npm run bench:api (reads spread over every queue). Every PR is queued as a submission the API
// can read; queues not `running` hold theirs without testing.
import { type QueueState, step } from "../../src/queue/index.ts";
import type { Repository } from "../../src/store/repositories.ts";
import type { Store } from "../../src/store/database.ts";
import { aPr, aQueue, T0 } from "../support/queue-factories.ts";

export const queueCount = 1000;
export const prsPerQueue = 20;

/** The branch of the queue numbered `queue` (from 0). */
export const branchOf = (queue: number) => `branch-${queue}`;

/** Fills `store` with the queues of `repository`; those for which `running` says so test their first PR. */
export async function fillQueues(
  store: Store,
  repository: Repository,
  running: (queue: number) => boolean,
): Promise<void> {
  for (let q = 0; q < queueCount; q++) {
    const queueId = `queue-${q}`;
    const initial: QueueState = {
      ...aQueue({ concurrency: 1 }, running(q) ? "running" : "paused"),
      queueId,
      targetBranch: branchOf(q),
    };
    let next = initial;
    for (let n = 1; n <= prsPerQueue; n++) {
      next = step(next, aPr(n, { submissionId: `${queueId}-${n}`, baseBranch: branchOf(q) }), T0 + n).state;
    }
    const queue = {
      id: queueId,
      repositoryId: repository.id,
      branch: branchOf(q),
      settings: initial.settings,
    };
    await store.createQueue(queue, initial, T0);
    await store.inQueueTransaction(queueId, async (trx) => {
      const stored = (await trx.loadQueueState(queueId))!;
      await trx.saveQueueStep({ stored, next, commands: [], now: T0, prUrl: String });
    });
  }
}
