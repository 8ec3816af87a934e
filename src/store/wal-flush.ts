// Durability of the queue steps committed on PostgreSQL. A step's transaction commits without waiting for the
// write-ahead log to reach the disk (`synchronous_commit` off for that transaction alone), so that the queue's
// lock, released at the commit, is not held through a flush: one queue's steps would otherwise wait for the disk
// one after the other (3 to 4 ms each on a common SSD). Nobody hears of a step before `durable` resolves, outside
// the lock: a transaction that then commits with the server's default, synchronous commit waits until the log is
// flushed up to its own commit record, which lies after those of every step committed before it started.
// `select txid_current()` gives it a transaction id, so that its commit writes a record and waits.
import type * as pg from "pg";

export class WalFlush {
  readonly #pool: pg.Pool;
  /** Steps committed so far, counted; and how many of them are known durable. */
  #committed = 0;
  #durable = 0;
  /** The flush under way, with the count of commits it covers: one at a time, each covering all before it. */
  #running: { covers: number; done: Promise<void> } | undefined;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  /** Called when a step's transaction has committed (not yet durable). */
  committed(): void {
    this.#committed++;
  }

  /**
   * Resolves once every step committed before the call is durable. A commit made while a flush is under way waits
   * for the next one, which starts when that one ends and covers every commit made meanwhile: a burst of steps
   * costs one or two flushes, not one each.
   */
  async durable(): Promise<void> {
    const target = this.#committed;
    for (;;) {
      if (this.#durable >= target) return;
      const running = this.#running;
      if (running === undefined) break;
      if (running.covers >= target) return running.done;
      await running.done.catch(() => undefined);
    }
    const covers = this.#committed;
    const flush = {
      covers,
      done: this.#pool.query("select txid_current()").then(() => {
        this.#durable = Math.max(this.#durable, covers);
      }),
    };
    this.#running = flush;
    try {
      await flush.done;
    } finally {
      if (this.#running === flush) this.#running = undefined;
    }
  }
}
