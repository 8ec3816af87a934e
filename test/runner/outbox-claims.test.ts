// Replicas share the outbox: a replica killed mid-command holds its queue up for seconds only, a live one whose
// command is slow keeps it, and two replicas draining the same queues run every command exactly once, in order.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { leaseMs } from "../../src/runner/outbox-worker.ts";
import { openDatabase, type Store } from "../../src/store/database.ts";
import { laneOf } from "../../src/store/outbox.ts";
import { createTestStore, type TestStore, testDialects } from "../support/database.ts";
import {
  aComment,
  aMerge,
  anOutboxQueue,
  aStatus,
  aTestBranch,
  enqueue,
  ExecutionLog,
  OutboxReplica,
} from "../support/outbox.ts";
import { T0 } from "../support/queue-factories.ts";

/**
 * The second replica's store: on PostgreSQL a connection pool of its own, as another process has. SQLite is one
 * writer per file; two connections in one process would block each other's event loop, so the replicas share it.
 */
const secondStore = (first: TestStore): Store =>
  first.dialect === "postgres" ? openDatabase(first.databaseUrl) : first;

describe.each(testDialects)("outbox claims across replicas on %s", (dialect) => {
  let first: TestStore;
  let second: Store;
  let now: number;
  let log: ExecutionLog;
  let dying: OutboxReplica;
  let survivor: OutboxReplica;
  beforeEach(async () => {
    first = await createTestStore(dialect);
    second = secondStore(first);
    now = T0;
    log = new ExecutionLog();
    dying = new OutboxReplica(first, log, "first", () => now);
    survivor = new OutboxReplica(second, log, "second", () => now);
  });
  afterEach(async () => {
    if (second !== first) await second.close();
    await first.destroy();
  });

  it("a replica killed mid-command loses it within seconds to another replica, which goes on in order", async () => {
    const queueId = await anOutboxQueue(first, "widgets");
    await enqueue(first, queueId, [aMerge("merge-1"), aTestBranch("branch-2")], now);
    dying.executor.behaviour = () => new Promise(() => {}); // killed: never finishes, never beats again
    dying.worker.kick(queueId);
    await vi.waitFor(() => expect(log.keys()).toEqual(["merge-1"]));
    const claimedAt = now;

    now += leaseMs - 1_000;
    await survivor.drain([queueId]);
    expect(log.keys()).toEqual(["merge-1"]);

    now += 1_000;
    await survivor.drain([queueId]);
    expect(log.started).toEqual([
      { queueId, key: "merge-1", replica: "first" },
      { queueId, key: "merge-1", replica: "second" },
      { queueId, key: "branch-2", replica: "second" },
    ]);
    // Taken over within seconds, not minutes.
    expect(now - claimedAt).toBeLessThanOrEqual(30_000);
  });

  it("a live replica whose command is slow keeps it: no other replica runs it", async () => {
    const queueId = await anOutboxQueue(first, "widgets");
    await enqueue(first, queueId, [aMerge("merge-1"), aTestBranch("branch-2")], now);
    let finish = () => {};
    dying.executor.behaviour = async (command) => {
      if (command.key === "merge-1") await new Promise<void>((resolve) => (finish = resolve));
    };
    dying.worker.kick(queueId);
    await vi.waitFor(() => expect(log.keys()).toEqual(["merge-1"]));

    // A minute of a slow GitHub: the heartbeat renews the lease, the other replica keeps trying.
    for (let beat = 0; beat < 12; beat++) {
      now += 5_000;
      await dying.worker.heartbeat();
      await survivor.drain([queueId]);
    }
    expect(log.keys()).toEqual(["merge-1"]);
    finish();
    await dying.worker.idle();
    expect(log.started.map((run) => `${run.key} by ${run.replica}`)).toEqual([
      "merge-1 by first",
      "branch-2 by first",
    ]);
  });
});

describe.runIf(testDialects.includes("postgres"))("two replicas on PostgreSQL", () => {
  let first: TestStore;
  let second: Store;
  beforeEach(async () => {
    first = await createTestStore("postgres");
    second = secondStore(first);
  });
  afterEach(async () => {
    await second.close();
    await first.destroy();
  });

  it("draining the same queues at once, run every command exactly once and each lane in order", async () => {
    const log = new ExecutionLog();
    const replicas = [
      new OutboxReplica(first, log, "first", Date.now),
      new OutboxReplica(second, log, "second", Date.now),
    ];
    // A GitHub that answers in 0–3 ms, so the replicas' claims interleave.
    for (const replica of replicas) {
      replica.executor.behaviour = () => new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
    }
    const queueIds = await Promise.all(
      ["widgets", "gadgets", "gizmos"].map((name) => anOutboxQueue(first, name)),
    );
    const commandsOf = (queueId: string, batch: number) =>
      Array.from({ length: 10 }, (_, index) => {
        const key = `${queueId}:${batch}:${index}`;
        if (index % 3 === 0) return aMerge(key);
        return index % 3 === 1 ? aStatus(key, key) : aComment(key, key);
      });
    const enqueued = new Map<string, ReturnType<typeof commandsOf>>(queueIds.map((id) => [id, []]));
    // Commands keep arriving while both replicas drain, as steps on either replica would add them.
    for (let batch = 0; batch < 8; batch++) {
      await Promise.all(
        queueIds.map(async (queueId) => {
          const commands = commandsOf(queueId, batch);
          enqueued.get(queueId)!.push(...commands);
          await enqueue(batch % 2 === 0 ? first : second, queueId, commands, Date.now());
        }),
      );
      for (const replica of replicas) for (const queueId of queueIds) replica.worker.kick(queueId);
    }
    await Promise.all(replicas.map((replica) => replica.drain(queueIds)));

    const keys = [...enqueued.values()].flat().map((command) => command.key);
    expect(keys).toHaveLength(240);
    expect(keys.filter((key) => log.count(key) !== 1)).toEqual([]);
    expect(new Set(log.started.map((run) => run.replica))).toEqual(new Set(["first", "second"]));
    for (const [queueId, commands] of enqueued) {
      for (const lane of ["effects", "notifications"]) {
        const inLane = new Set(commands.filter((command) => laneOf(command) === lane).map((c) => c.key));
        const order = commands.filter((command) => inLane.has(command.key)).map((command) => command.key);
        expect(log.keys(queueId).filter((key) => inLane.has(key))).toEqual(order);
      }
    }
  });
});
