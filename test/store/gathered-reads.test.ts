// Reads asked while one is on its way go together in the next, each sent only after it was asked; and the queue
// states' versions that inert dispatches check are read that way: several queues' in one statement, each queue its
// own version, another replica's save seen.
import type { Kysely } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { step } from "../../src/queue/index.ts";
import { gatheredReads } from "../../src/store/gathered-reads.ts";
import { queueStorage } from "../../src/store/queue-storage.ts";
import type { Database } from "../../src/store/schema.ts";
import { createTestStore, type TestStore, testDialects } from "../support/database.ts";
import { countedStatements } from "../support/counted-statements.ts";
import { anOutboxQueue } from "../support/outbox.ts";
import { aPr, T0 } from "../support/queue-factories.ts";

describe("gathered reads", () => {
  /** A read of its own that answers each key doubled, once `finish` is called; the keys of each read. */
  function aSlowRead() {
    const reads: string[][] = [];
    const finishers: (() => void)[] = [];
    const read = gatheredReads(async (keys) => {
      reads.push([...keys]);
      await new Promise<void>((resolve) => finishers.push(resolve));
      return new Map(keys.filter((key) => key !== "missing").map((key) => [key, `${key}${key}`]));
    });
    const finish = async () => {
      finishers.shift()!();
      await new Promise((resolve) => setImmediate(resolve));
    };
    return { read, reads, finish };
  }

  it("sends the first read at once, and those asked meanwhile together after it, each key once", async () => {
    const { read, reads, finish } = aSlowRead();
    const a = read("a");
    expect(reads).toEqual([["a"]]);
    const [b, c, again, missing] = [read("b"), read("c"), read("b"), read("missing")];
    expect(reads).toEqual([["a"]]);
    await finish();
    expect(reads).toEqual([["a"], ["b", "c", "missing"]]);
    await finish();
    expect(await Promise.all([a, b, c, again, missing])).toEqual(["aa", "bb", "cc", "bb", undefined]);
    read("d");
    expect(reads.at(-1)).toEqual(["d"]);
  });

  it("fails the callers of a failed read only, and reads on after it", async () => {
    let fail = true;
    const read = gatheredReads(async (keys) => {
      if (fail) throw new Error("connection lost");
      return new Map(keys.map((key) => [key, key]));
    });
    await expect(read("a")).rejects.toThrow("connection lost");
    fail = false;
    expect(await read("b")).toBe("b");
  });
});

describe.each(testDialects)("queue states' versions read together on %s", (dialect) => {
  let store: TestStore;
  let queueIds: string[];
  beforeEach(async () => {
    store = await createTestStore(dialect);
    queueIds = [];
    for (const name of ["widgets", "gadgets", "rockets"]) queueIds.push(await anOutboxQueue(store, name));
  });
  afterEach(async () => {
    await store.destroy();
  });

  /** `db`, counting the reads of queues' versions sent through it. */
  const counted = (db: Kysely<Database>) => countedStatements(db, (sql) => sql.includes("next_command_seq"));

  it("loads several queues' states asked at once with one read of their versions, once this process knows them", async () => {
    const { db, counter } = counted(store.db);
    const storage = queueStorage({ db, dialect });
    for (const queueId of queueIds) await storage.loadQueueState(queueId);
    counter.statements = 0;

    const loaded = await Promise.all([...queueIds, "nowhere"].map((id) => storage.loadQueueState(id)));

    expect(loaded.map((stored) => stored?.queueId)).toEqual([...queueIds, undefined]);
    // The first went at once, the three others together after it ("nowhere" found missing by that read).
    expect(counter.statements).toBe(2);
  });

  it("sees a version another replica saved", async () => {
    const storage = queueStorage(store);
    const replica = queueStorage(store);
    const [queueId] = queueIds as [string];
    const before = (await storage.loadQueueState(queueId))!;
    await replica.inQueueTransaction(queueId, async (queue) => {
      const stored = (await queue.loadQueueState(queueId))!;
      const next = step(stored.state, aPr(1), T0).state;
      await queue.saveQueueStep({ stored, next, commands: [], now: T0, prUrl: String });
    });

    const [after, other] = await Promise.all([
      storage.loadQueueState(queueId),
      storage.loadQueueState(queueIds[1]!),
    ]);

    expect(after!.version).toBe(before.version + 1);
    expect(Object.keys(after!.state.prs)).toEqual(["1"]);
    expect(other!.queueId).toBe(queueIds[1]);
  });
});
