// The queue runner's storage (src/ports/queue-storage.ts) on this database.
import type { QueueStep, QueueStorage, QueueTransaction } from "../ports/queue-storage.ts";
import type { Connection } from "./connection.ts";
import { purgeDeliveries, recordDeliveries } from "./deliveries.ts";
import {
  claimNextCommand,
  completeCommand,
  postponeCommand,
  purgeCompletedCommands,
  queuesWithDueCommands,
  renewClaims,
} from "./outbox.ts";
import { queueLocation } from "./queue-locations.ts";
import {
  insertQueueState,
  loadQueueState,
  lockQueue,
  queuesNeedingAttention,
  saveQueueStep,
} from "./queue-states.ts";
import { deleteQueueRow, insertQueue } from "./queues.ts";
import { QueueStateCache } from "./state-cache.ts";

export function queueStorage({ db, dialect }: Connection): QueueStorage {
  const states = new QueueStateCache();
  return {
    async inQueueTransaction(queueId, work) {
      const saved: QueueStep[] = [];
      const result = await db.transaction().execute(async (trx) => {
        await lockQueue(trx, dialect, queueId);
        const queue: QueueTransaction = {
          loadQueueState: (id) => loadQueueState(trx, id, states),
          saveQueueStep: async (step) => {
            await saveQueueStep(trx, step);
            saved.push(step);
          },
          recordDeliveries: (deliveries) => recordDeliveries(trx, deliveries),
          completeCommand: (id, now, error) => completeCommand(trx, id, now, error),
          deleteQueue: (id) => deleteQueueRow(trx, id),
        };
        return work(queue);
      });
      // Only once committed: a state rolled back must not be taken for the version it would have been.
      for (const { stored, next } of saved) states.set(stored.queueId, stored.version + 1, next);
      return result;
    },
    queueLocation: (queueId) => queueLocation(db, queueId),
    loadQueueState: (queueId) => loadQueueState(db, queueId, states),
    createQueue: (queue, state, now) =>
      db.transaction().execute(async (trx) => {
        if (!(await insertQueue(trx, queue, now))) return false;
        await insertQueueState(trx, state, now);
        return true;
      }),
    queuesNeedingAttention: (now) => queuesNeedingAttention(db, now),
    purgeDeliveries: (before) => purgeDeliveries(db, before),
    claimNextCommand: (queueId, lane, claim) => claimNextCommand(db, queueId, lane, claim),
    renewClaims: (ids, claim) => renewClaims(db, ids, claim),
    completeCommand: (id, now, error) => completeCommand(db, id, now, error),
    postponeCommand: (id, holder, retry) => postponeCommand(db, id, holder, retry),
    queuesWithDueCommands: (now) => queuesWithDueCommands(db, now),
    purgeCompletedCommands: (before) => purgeCompletedCommands(db, before),
  };
}
