// The flushes that make queue steps durable on PostgreSQL: one at a time, each covering every commit made before it
// started, so that a burst of steps costs one or two flushes rather than one each, and no step is answered early.
import type * as pg from "pg";
import { describe, expect, it } from "vitest";
import { WalFlush } from "../../src/store/wal-flush.ts";

/** A pool whose flushes end when the test says so. */
function aSlowPool() {
  const flushes: { end: () => void; fail: (error: Error) => void }[] = [];
  const pool = {
    query: () =>
      new Promise((resolve, reject) => flushes.push({ end: () => resolve({ rows: [] }), fail: reject })),
  } as unknown as pg.Pool;
  return { pool, flushes };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe("making committed steps durable", () => {
  it("costs nothing when every commit is durable already", async () => {
    const { pool, flushes } = aSlowPool();
    await new WalFlush(pool).durable();
    expect(flushes).toHaveLength(0);
  });

  it("gives commits made during a flush to the next one, which covers them all", async () => {
    const { pool, flushes } = aSlowPool();
    const wal = new WalFlush(pool);
    const answered: string[] = [];
    wal.committed();
    const first = wal.durable().then(() => answered.push("first"));
    await settled();
    wal.committed();
    wal.committed();
    const second = wal.durable().then(() => answered.push("second"));
    const third = wal.durable().then(() => answered.push("third"));
    await settled();
    expect(flushes).toHaveLength(1);

    flushes[0]!.end();
    await first;
    await settled();
    // The first flush started before the two later commits: it does not answer for them.
    expect(answered).toEqual(["first"]);
    expect(flushes).toHaveLength(2);

    flushes[1]!.end();
    await Promise.all([second, third]);
    expect(answered).toEqual(["first", "second", "third"]);
    await wal.durable();
    expect(flushes).toHaveLength(2);
  });

  it("fails the steps it covers when the flush fails, and flushes again for the next caller", async () => {
    const { pool, flushes } = aSlowPool();
    const wal = new WalFlush(pool);
    wal.committed();
    const waiting = wal.durable();
    await settled();
    flushes[0]!.fail(new Error("connection lost"));
    await expect(waiting).rejects.toThrow("connection lost");

    const again = wal.durable();
    await settled();
    expect(flushes).toHaveLength(2);
    flushes[1]!.end();
    await again;
  });
});
