// Queue steps on PostgreSQL that share transactions (group commit across queues). Deliveries to many queues each
// start a step of their own queue; one transaction per step cost a commit and two round trips each (over 10 queues,
// about 2.3 statements per delivery). Here at most two transactions run at once, and the steps that ask meanwhile
// go together in the next one, each under its own queue's lock, with its own opening read and writes
// (postgres-queue-transaction.ts): about one statement per delivery, and a third less of PostgreSQL's CPU. A
// transaction that runs for long (waiting for a lock another replica holds) stops counting (STALLED_MS).
import type * as pg from "pg";
import {
  inPostgresQueueTransaction,
  inSharedTransaction,
  type Member,
  type PostgresQueueTransaction,
  type Settled,
} from "./postgres-queue-transaction.ts";

/** Transactions sent at once; more queues' works wait and share the next one. */
const RUNNING_AT_ONCE = 2;
/**
 * A transaction running longer than this no longer holds the others back. It most likely waits for a queue's lock
 * that another replica holds, perhaps for long (a replica frozen mid-step keeps its locks until its connection
 * dies): the steps of other queues must not wait with it.
 */
export const STALLED_MS = 250;
/** Queues in one shared transaction at most: its locks are held until its last work is done. */
const QUEUES_PER_TRANSACTION = 16;

interface Waiting<T> extends Member<T> {
  resolve(value: T): void;
  reject(error: unknown): void;
}

/**
 * Queue transactions on one pool that share transactions: works for different queues that wait while others run
 * go together in the next one, each with its own lock, opening read and writes. A work that fails never takes the
 * others down with it: when a shared transaction fails, each of its works is run again in a transaction of its own
 * and succeeds or fails by itself (a work is run again from the start, as a retried transaction would be).
 */
export class PostgresQueueTransactions {
  readonly #pool: pg.Pool;
  readonly #waiting: Waiting<unknown>[] = [];
  /** When each transaction running began (performance.now()). */
  readonly #running = new Set<{ startedAt: number }>();
  /** Set while works wait for a running transaction that may stall: when to look again. */
  #recheck: NodeJS.Timeout | undefined;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  run<T>(queueId: string, work: (transaction: PostgresQueueTransaction) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#waiting.push({ queueId, work, resolve, reject } as Waiting<unknown>);
      this.#startWaiting();
    });
  }

  #startWaiting(): void {
    const now = performance.now();
    const busy = [...this.#running].filter(({ startedAt }) => now - startedAt < STALLED_MS);
    while (busy.length < RUNNING_AT_ONCE && this.#waiting.length > 0) {
      const running = { startedAt: now };
      busy.push(running);
      this.#running.add(running);
      void this.#runBatch(this.#nextBatch()).finally(() => {
        this.#running.delete(running);
        this.#startWaiting();
      });
    }
    if (this.#waiting.length === 0 || this.#recheck !== undefined) return;
    const stallsAt = Math.min(...busy.map(({ startedAt }) => startedAt + STALLED_MS));
    this.#recheck = setTimeout(() => {
      this.#recheck = undefined;
      this.#startWaiting();
    }, stallsAt - now);
    this.#recheck.unref();
  }

  /** The oldest waiting works, one per queue: a second work for a queue waits for the first one's transaction. */
  #nextBatch(): Waiting<unknown>[] {
    const batch: Waiting<unknown>[] = [];
    const queues = new Set<string>();
    for (let index = 0; index < this.#waiting.length && batch.length < QUEUES_PER_TRANSACTION;) {
      const waiting = this.#waiting[index]!;
      if (queues.has(waiting.queueId)) {
        index++;
        continue;
      }
      queues.add(waiting.queueId);
      batch.push(waiting);
      this.#waiting.splice(index, 1);
    }
    return batch;
  }

  async #runBatch(batch: readonly Waiting<unknown>[]): Promise<void> {
    const shared = await inSharedTransaction(this.#pool, batch).catch((error: unknown) => ({
      committed: false,
      outcomes: batch.map((): Settled<unknown> => ({ ok: false, error })),
    }));
    if (shared.committed || batch.length === 1) {
      for (const [index, waiting] of batch.entries()) {
        const outcome = shared.outcomes[index]!;
        if (outcome.ok) waiting.resolve(outcome.value);
        else waiting.reject(outcome.error);
      }
      return;
    }
    for (const waiting of batch) {
      await inPostgresQueueTransaction(this.#pool, waiting.queueId, waiting.work).then(
        waiting.resolve,
        waiting.reject,
      );
    }
  }
}
