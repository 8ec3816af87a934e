// On PostgreSQL a queue's transaction sends its opening (begin, lock, read) and its step's writes with the commit as
// simple queries, values inlined as literals: what they save must be exactly what parameters would have saved, and
// a write that fails must leave nothing behind.
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import pg from "pg";
import { escapeLiteral, inPostgresQueueTransaction } from "../../src/store/postgres-queue-transaction.ts";
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
