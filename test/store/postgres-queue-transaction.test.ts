// On PostgreSQL a queue's transaction sends its opening (begin, lock, read) and its step's writes with the commit as
// simple queries, values inlined as literals: what they save must be exactly what parameters would have saved, and
// a write that fails must leave nothing behind.
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import pg from "pg";
import {
  escapeLiteral,
  inPostgresQueueTransaction,
  type PostgresQueueTransaction,
} from "../../src/store/postgres-queue-transaction.ts";
import { PostgresQueueTransactions } from "../../src/store/postgres-shared-transactions.ts";
import { createTestStore, type TestStore } from "../support/database.ts";
import { anOutboxQueue } from "../support/outbox.ts";

const onPostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;

describe("a literal in a queue's transaction", () => {
  it("is escaped exactly as the driver escapes it", () => {
    const driver = new pg.Client();
    for (const text of [
      "",
      "plain",
      "it's",
      "back\\slash",
      "\\' mixed ''",
      "$1 ; commit; --",
      "ünïcødé ☃ 𝄞",
    ]) {
      expect(escapeLiteral(text)).toBe(driver.escapeLiteral(text));
    }
  });
});

onPostgres("a queue's transaction on PostgreSQL", () => {
  let store: TestStore;
  let queueId: string;
  beforeEach(async () => {
    store = await createTestStore("postgres");
    queueId = await anOutboxQueue(store, "widgets");
    await sql`create table literals (n serial primary key, t text, b bigint, d double precision, j jsonb, a text[])`.execute(
      store.db,
    );
  });
  afterEach(() => store.destroy());

  const awkward: { t: string | null; b: number | null; d: number; j: string; a: string[] }[] = [
    { t: "it's", b: 1_764_000_000_000, d: 0.1, j: '{"x":"y\'z"}', a: ["a", "b,c", 'd"e'] },
    { t: "back\\slash \\' and \\\\", b: -42, d: -1.5e-7, j: "[]", a: [] },
    { t: "$1 $2 ?? ; commit; --", b: 0, d: 1e21, j: '"\\u00e9"', a: ["{}", "\\"] },
    { t: "ünïcødé ☃ 𝄞", b: null, d: Number.MAX_VALUE, j: "null", a: ["NULL"] },
    { t: null, b: Number.MAX_SAFE_INTEGER, d: 0, j: '{"n":1}', a: [""] },
  ];

  const rows = async () =>
    (
      await sql<Record<string, unknown>>`select t, b, d, j::text as j, a from literals order by n`.execute(
        store.db,
      )
    ).rows;

  it("saves at the commit exactly what parameters save", async () => {
    for (const row of awkward)
      await store.db
        .insertInto("literals" as never)
        .values(row as never)
        .execute();
    const withParameters = await rows();
    await sql`truncate literals restart identity`.execute(store.db);

    const opened = await inPostgresQueueTransaction(store.pool!, queueId, async ({ atCommit, open }) => {
      const opening = await open([]);
      for (const row of awkward)
        await atCommit
          .insertInto("literals" as never)
          .values(row as never)
          .execute();
      return opening?.located;
    });
    expect(opened).toMatchObject({ queueId, version: 1 });
    expect(await rows()).toEqual(withParameters);
  });

  it("a read after writes left for the commit sees them", async () => {
    const seen = await inPostgresQueueTransaction(store.pool!, queueId, async ({ trx, atCommit }) => {
      await atCommit
        .insertInto("literals" as never)
        .values({ t: "first" } as never)
        .execute();
      return (await sql<{ t: string }>`select t from literals`.execute(trx)).rows;
    });
    expect(seen).toEqual([{ t: "first" }]);
  });

  it("a write that fails at the commit saves nothing of the transaction, and the pool works on", async () => {
    await expect(
      inPostgresQueueTransaction(store.pool!, queueId, async ({ atCommit }) => {
        await atCommit
          .insertInto("literals" as never)
          .values({ t: "kept?" } as never)
          .execute();
        await atCommit
          .insertInto("literals" as never)
          .values({ n: 1, t: "same key" } as never)
          .execute();
        await atCommit
          .insertInto("literals" as never)
          .values({ n: 1, t: "same key" } as never)
          .execute();
      }),
    ).rejects.toThrow(/duplicate key/);
    expect(await rows()).toEqual([]);
    for (let i = 0; i < 12; i++) {
      await inPostgresQueueTransaction(store.pool!, queueId, async ({ atCommit }) => {
        await atCommit
          .insertInto("literals" as never)
          .values({ t: `row ${i}` } as never)
          .execute();
      });
    }
    expect(await rows()).toHaveLength(12);
  });

  it("a queue that does not exist opens with nothing found", async () => {
    const opened = await inPostgresQueueTransaction(
      store.pool!,
      "no-such-queue",
      async ({ open }) => (await open([]))?.located,
    );
    expect(opened).toBeUndefined();
  });

  const delivery = (key: string) => ({ key, event: "status", now: 1_764_000_000_000 });
  const recordedKeys = async () =>
    (await store.db.selectFrom("webhook_deliveries").select("id").orderBy("id").execute()).map(
      (row) => row.id,
    );

  it("records deliveries in its opening, answering those handled before", async () => {
    await inPostgresQueueTransaction(store.pool!, queueId, async ({ open }) => open([delivery("a:q")]));
    const opening = await inPostgresQueueTransaction(store.pool!, queueId, async ({ open }) =>
      open([delivery("a:q"), delivery("it's:q")]),
    );
    expect(opening).toMatchObject({ located: { queueId, version: 1 }, recorded: new Set(["it's:q"]) });
    expect(await recordedKeys()).toEqual(["a:q", "it's:q"]);
  });

  it("opens once: a query opens it, and a later open answers nothing", async () => {
    const later = await inPostgresQueueTransaction(store.pool!, queueId, async ({ trx, open }) => {
      await sql`select 1`.execute(trx);
      return open([delivery("b:q")]);
    });
    expect(later).toBeUndefined();
    expect(await recordedKeys()).toEqual([]);
  });

  it("deliveries recorded by an opening whose transaction fails are not recorded", async () => {
    await expect(
      inPostgresQueueTransaction(store.pool!, queueId, async ({ open }) => {
        await open([delivery("c:q")]);
        throw new Error("the step failed");
      }),
    ).rejects.toThrow("the step failed");
    expect(await recordedKeys()).toEqual([]);
  });
});

onPostgres("queues' steps sharing a transaction on PostgreSQL", () => {
  let store: TestStore;
  let queues: string[];
  let transactions: PostgresQueueTransactions;
  beforeEach(async () => {
    store = await createTestStore("postgres");
    queues = [];
    for (const name of ["q0", "q1", "q2", "q3", "q4"]) queues.push(await anOutboxQueue(store, name));
    await sql`create table literals (n serial primary key, t text)`.execute(store.db);
    transactions = new PostgresQueueTransactions(store.pool!);
  });
  afterEach(() => store.destroy());

  const saved = async () =>
    (await sql<{ t: string }>`select t from literals order by t`.execute(store.db)).rows.map((row) => row.t);

  /** Two works that keep both transactions sent at once open until released: whatever is asked meanwhile waits. */
  function occupy(): { release: () => Promise<void> } {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const held = [0, 1].map((index) =>
      transactions.run(queues[index]!, async ({ open: opening }) => {
        await opening([]);
        await gate;
      }),
    );
    return {
      release: async () => {
        open();
        await Promise.all(held);
      },
    };
  }

  /** A step's stand-in: reads its transaction's id and the advisory locks it holds, saves `label` at the commit. */
  const step =
    (label: string) =>
    async ({ trx, atCommit }: PostgresQueueTransaction) => {
      const { rows } = await sql<{ id: string; locks: string }>`select txid_current()::text as id,
        (select count(*) from pg_locks where locktype = 'advisory' and pid = pg_backend_pid())::text as locks`.execute(
        trx,
      );
      await atCommit
        .insertInto("literals" as never)
        .values({ t: label } as never)
        .execute();
      return rows[0]!;
    };

  it("steps of other queues that wait while two transactions run share the next one, each holding its lock", async () => {
    const running = occupy();
    const waiting = [2, 3, 4].map((index) => transactions.run(queues[index]!, step(`q${index}`)));
    await running.release();
    const seen = await Promise.all(waiting);
    expect(new Set(seen.map((transaction) => transaction.id)).size).toBe(1);
    expect(seen[0]!.locks).toBe("3");
    expect(await saved()).toEqual(["q2", "q3", "q4"]);
  });

  it("a step that fails in a shared transaction fails alone: the others are saved, nothing of it is", async () => {
    const running = occupy();
    const failing = expect(
      transactions.run(queues[2]!, async (transaction) => {
        await step("q2")(transaction);
        throw new Error("the step of q2 failed");
      }),
    ).rejects.toThrow("the step of q2 failed");
    const others = [3, 4].map((index) => transactions.run(queues[index]!, step(`q${index}`)));
    await running.release();
    await failing;
    await Promise.all(others);
    expect(await saved()).toEqual(["q3", "q4"]);
  });

  it("a write that fails at the shared commit fails only the step that made it", async () => {
    const running = occupy();
    const failing = expect(
      transactions.run(queues[2]!, async ({ atCommit }) => {
        for (const t of ["twice", "twice"])
          await atCommit
            .insertInto("literals" as never)
            .values({ n: 7, t } as never)
            .execute();
      }),
    ).rejects.toThrow(/duplicate key/);
    const other = transactions.run(queues[3]!, step("q3"));
    await running.release();
    await failing;
    await other;
    expect(await saved()).toEqual(["q3"]);
  });

  it("two steps of one queue never share a transaction: the second sees what the first saved", async () => {
    const running = occupy();
    const first = transactions.run(queues[2]!, step("first"));
    const second = transactions.run(queues[2]!, async (transaction) => {
      const before = await sql<{ t: string }>`select t from literals`.execute(transaction.trx);
      return { ...(await step("second")(transaction)), before: before.rows.map((row) => row.t) };
    });
    await running.release();
    const [a, b] = await Promise.all([first, second]);
    expect(b.id).not.toBe(a.id);
    expect(b.before).toEqual(["first"]);
  });

  it("starts the steps of other queues while both transactions running wait for locks another replica holds", async () => {
    const outside = await store.pool!.connect();
    const lockKey = (id: string) => `hashtextextended(${escapeLiteral(id)}, 0)`;
    try {
      // As a replica frozen mid-step would: its locks stay held until its connection dies.
      await outside.query(
        `select pg_advisory_lock(${lockKey(queues[0]!)}), pg_advisory_lock(${lockKey(queues[1]!)})`,
      );
      const blocked = [0, 1].map((index) => transactions.run(queues[index]!, step(`q${index}`)));
      let blockedDone = false;
      void Promise.all(blocked).then(() => (blockedDone = true));
      await transactions.run(queues[2]!, step("q2"));
      expect(blockedDone).toBe(false);
      expect(await saved()).toEqual(["q2"]);
      await outside.query("select pg_advisory_unlock_all()");
      await Promise.all(blocked);
      expect(await saved()).toEqual(["q0", "q1", "q2"]);
    } finally {
      outside.release();
    }
  });

  it("takes its queues' locks in the order of their ids, so that two replicas' shared transactions never deadlock", async () => {
    const [low, high] = [queues[2]!, queues[3]!].sort();
    const outside = await store.pool!.connect();
    const lockKey = (id: string) => `hashtextextended(${escapeLiteral(id)}, 0)`;
    try {
      await outside.query(`select pg_advisory_lock(${lockKey(low!)})`);
      const running = occupy();
      // Asked for the higher id first: locking in that order would hold it while waiting for the lower one.
      const shared = [high!, low!].map((id) => transactions.run(id, step(id)));
      await running.release();
      await new Promise((resolve) => setTimeout(resolve, 200));
      const { rows } = await outside.query(`select pg_try_advisory_lock(${lockKey(high!)}) as free`);
      expect(rows[0].free).toBe(true);
      await outside.query(`select pg_advisory_unlock(${lockKey(high!)})`);
      await outside.query(`select pg_advisory_unlock(${lockKey(low!)})`);
      await Promise.all(shared);
      expect(await saved()).toEqual([low, high].sort());
    } finally {
      outside.release();
    }
  });
});
