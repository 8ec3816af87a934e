// Durability of the queue steps committed on PostgreSQL. A step's transaction commits without waiting for the
// write-ahead log to reach the disk (`synchronous_commit` off for that transaction alone), so that the queue's
// lock, released at the commit, is not held through a flush: one queue's steps would otherwise wait for the disk
// one after the other (3 to 4 ms each on a common SSD). Nobody hears of a step before `durable` resolves, outside
// the lock: a transaction that then commits with the server's default, synchronous commit waits until the log is
// flushed up to its own commit record, which lies after those of every step committed before it started.
// `select txid_current()` gives it a transaction id, so that its commit writes a record and waits. Waits that
// start together share one flush (the server's group commit); a wait already running covers the commits it
// started after.
import type * as pg from "pg";

export class WalFlush {
  readonly #pool: pg.Pool;
  /** Steps committed so far, counted; and how many of them are known durable. */
  #committed = 0;
  #durable = 0;
  /** Flushes under way, each with the count of commits it covers. */
  readonly #running = new Set<{ covers: number; done: Promise<void> }>();

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  /** Called when a step's transaction has committed (not yet durable). */
  committed(): void {
    this.#committed++;
  }

  /** Resolves once every step committed before the call is durable. */
  async durable(): Promise<void> {
    const target = this.#committed;
    if (this.#durable >= target) return;
    for (const flush of this.#running) if (flush.covers >= target) return flush.done;
    const flush = {
      covers: target,
      done: this.#pool.query("select txid_current()").then(() => {
        this.#durable = Math.max(this.#durable, target);
      }),
    };
    this.#running.add(flush);
    try {
      await flush.done;
    } finally {
      this.#running.delete(flush);
    }
  }
}
