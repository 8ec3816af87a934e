// The queue runner's storage (src/ports/queue-persistence.ts) on this database, and the API's reads of queue states,
// which share its parsed states: a state a step saved serves the reads that follow without being parsed again.
import type { Transaction } from "kysely";
import type {
  DeliveryRecord,
  QueueStep,
  QueueStorage,
  QueueTransaction,
} from "../ports/queue-persistence.ts";
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
  locatedQueueState,
  lockQueue,
  queuesNeedingAttention,
  queueStateVersions,
  readQueueState,
  saveQueueStep,
} from "./queue-states.ts";
import { gatheredReads } from "./gathered-reads.ts";
import { deleteQueueRow, insertQueue } from "./queues.ts";
import { QueueStateCache } from "./state-cache.ts";
import type { Database } from "./schema.ts";
import type { Opening, PostgresQueueTransaction } from "./postgres-queue-transaction.ts";
import { PostgresQueueTransactions } from "./postgres-shared-transactions.ts";
import type { QueueSnapshot } from "../ports/queue-records.ts";
export type { QueueSnapshot } from "../ports/queue-records.ts";

export interface QueueStateReads {
  /**
   * The queue's state as saved at `version`, which the caller just read, or at a later one saved since; parsed
   * only when this process holds neither.
   */
  queueSnapshot(queueId: string, version: number): Promise<QueueSnapshot | undefined>;
  /** The queue this process knows to test commit `sha` in a run in flight (QueueStateCache.queueTestingAt). */
  queueTestingAt(sha: string): string | undefined;
}

export function queueStorage(connection: Connection): QueueStorage & QueueStateReads {
  const { db, dialect, pool } = connection;
  const states = new QueueStateCache();
  // On PostgreSQL, steps of different queues that wait while others run share the next transaction.
  const postgresTransactions = pool === undefined ? undefined : new PostgresQueueTransactions(pool);
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
    queueTestingAt: (sha) => states.queueTestingAt(sha),
    async inQueueTransaction(queueId, work) {
      const saved: QueueStep[] = [];
      /**
       * `open`: on PostgreSQL, what sends the transaction's opening (see inPostgresQueueTransaction), whose read of
       * the queue serves the first load of it, and which records the deliveries when that is the first thing the
       * work does; `atCommit`: where the step's writes go (on PostgreSQL, sent with the commit).
       */
      const inTransaction = (
        trx: Transaction<Database>,
        atCommit: Transaction<Database>,
        open?: PostgresQueueTransaction["open"],
      ) => {
        // A work may run again (a shared transaction failed by another queue's work): only its last run counts.
        saved.length = 0;
        let openedRead: Promise<Opening> | undefined;
        const opening = (deliveries: readonly DeliveryRecord[]) => {
          const sent = open?.(deliveries);
          if (sent !== undefined) openedRead = sent;
          return sent;
        };
        /** The opening's read, for the first load of the transaction's queue; sent now if nothing sent it yet. */
        const takeOpenedRead = (id: string) => {
          if (id !== queueId) return undefined;
          opening([]);
          const read = openedRead;
          openedRead = undefined;
          return read;
        };
        /** The first load of the transaction's queue is served by the opening's read; any other load reads. */
        const viaOpening = async <T>(id: string, otherwise: () => Promise<T>) => {
          const read = takeOpenedRead(id);
          return read === undefined ? otherwise() : locatedQueueState(trx, id, (await read).located, states);
        };
        const queue: QueueTransaction = {
          loadQueueState: (id) => viaOpening(id, () => loadQueueState(trx, id, states)),
          loadLocatedQueueState: (id) => viaOpening(id, () => loadLocatedQueueState(trx, id, states)),
          saveQueueStep: async (step) => {
            await saveQueueStep(atCommit, step);
            saved.push(step);
          },
          recordDeliveries: async (deliveries) => {
            const sent = deliveries.length > 0 ? opening(deliveries) : undefined;
            return sent === undefined ? recordDeliveries(trx, deliveries) : (await sent).recorded;
          },
          completeCommand: (id, now, error) => completeCommand(trx, id, now, error),
          deleteQueue: (id) => deleteQueueRow(trx, id),
        };
        return work(queue);
      };
      const result =
        postgresTransactions === undefined
          ? await db.transaction().execute(async (trx) => {
              await lockQueue(trx, dialect, queueId);
              return inTransaction(trx, trx);
            })
          : await postgresTransactions.run(queueId, ({ trx, atCommit, open }) =>
              inTransaction(trx, atCommit, open),
            );
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
