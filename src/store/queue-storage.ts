// The queue runner's storage (src/ports/queue-persistence.ts) on this database, and the API's reads of queue states,
// which share its parsed states: a state a step saved serves the reads that follow without being parsed again.
import type { QueueStep, QueueStorage, QueueTransaction } from "../ports/queue-persistence.ts";
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
  loadLocatedQueueState,
  loadQueueState,
  lockQueue,
  queuesNeedingAttention,
  queueStateVersions,
  readQueueState,
  saveQueueStep,
} from "./queue-states.ts";
import { gatheredReads } from "./gathered-reads.ts";
import { deleteQueueRow, insertQueue } from "./queues.ts";
import { QueueStateCache } from "./state-cache.ts";
import type { QueueSnapshot } from "../ports/queue-records.ts";
export type { QueueSnapshot } from "../ports/queue-records.ts";

export interface QueueStateReads {
  /**
   * The queue's state as saved at `version`, which the caller just read, or at a later one saved since; parsed
   * only when this process holds neither.
   */
  queueSnapshot(queueId: string, version: number): Promise<QueueSnapshot | undefined>;
}

export function queueStorage(connection: Connection): QueueStorage & QueueStateReads {
  const { db, dialect } = connection;
  const states = new QueueStateCache();
  // Outside a transaction, the reads of queues' versions (one per dispatch found inert) go together.
  const versionOf = gatheredReads((queueIds) => queueStateVersions(connection, queueIds));
  return {
    async queueSnapshot(queueId, version) {
      const cached = states.get(queueId, version);
      if (cached !== undefined) return { queueId, version, state: cached };
      // The caller has just read the version: the state is not this process's to reuse, so it is read.
      const stored = await readQueueState(db, queueId, states);
      return stored && { queueId, version: stored.version, state: stored.state };
    },
    async inQueueTransaction(queueId, work) {
      const saved: QueueStep[] = [];
      const result = await db.transaction().execute(async (trx) => {
        await lockQueue(trx, dialect, queueId);
        const queue: QueueTransaction = {
          loadQueueState: (id) => loadQueueState(trx, id, states),
          loadLocatedQueueState: (id) => loadLocatedQueueState(trx, id, states),
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
    loadQueueState: (queueId) => loadQueueState(db, queueId, states, versionOf),
    knownQueueState: (queueId) => states.latest(queueId),
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
