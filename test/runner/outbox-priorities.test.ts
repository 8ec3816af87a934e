// Under load the writes that move the queue never wait behind the ones that only tell people about it: merges
// go ahead of statuses and comments, a status or comment replaced before it was sent is never sent, and GitHub's
// rate limit on one repository holds up only that repository, until the time GitHub named.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
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

/** What Octokit throws for GitHub's secondary rate limit. */
function secondaryRateLimit(retryAfterSeconds: number): Error {
  return Object.assign(new Error("You have exceeded a secondary rate limit"), {
    status: 403,
    response: { headers: { "retry-after": String(retryAfterSeconds) } },
  });
}

describe.each(testDialects)("outbox priorities on %s", (dialect) => {
  let store: TestStore;
  let now: number;
  let log: ExecutionLog;
  let replica: OutboxReplica;
  beforeEach(async () => {
    store = await createTestStore(dialect);
    now = T0;
    log = new ExecutionLog();
    replica = new OutboxReplica(store, log, "replica", () => now);
  });
  afterEach(async () => {
    await store.destroy();
  });

  it("a merge queued behind many status and comment writes runs before them", async () => {
    const queueId = await anOutboxQueue(store, "widgets");
    const notifications = Array.from({ length: 20 }, (_, index) =>
      index % 2 === 0
        ? aStatus(`status-${index}`, `sha-${index}`)
        : aComment(`comment-${index}`, `sub-${index}`),
    );
    await enqueue(store, queueId, notifications, now);
    await enqueue(store, queueId, [aMerge("merge")], now);
    await replica.drain([queueId]);
    // At most the one write already on its way when the merge arrived goes first.
    expect(log.keys().indexOf("merge")).toBeLessThanOrEqual(1);
    expect(log.keys()).toHaveLength(21);
  });

  it("of writes to the same status or comment, only the newest one is sent", async () => {
    const queueId = await anOutboxQueue(store, "widgets");
    await enqueue(store, queueId, [aStatus("queued", "head-1"), aComment("comment: queued", "sub-1")], now);
    await enqueue(store, queueId, [aStatus("testing", "head-1"), aComment("comment: testing", "sub-1")], now);
    await enqueue(
      store,
      queueId,
      [
        aStatus("merged", "head-1", "success"),
        aStatus("other commit", "head-2"),
        aComment("comment: merged", "sub-1"),
      ],
      now,
    );
    await replica.drain([queueId]);
    expect(log.keys()).toEqual(["merged", "other commit", "comment: merged"]);
  });

  it("a status already on its way is not recalled: the newer one follows it", async () => {
    const queueId = await anOutboxQueue(store, "widgets");
    let answer = () => {};
    replica.executor.behaviour = async (command) => {
      if (command.key === "queued") await new Promise<void>((resolve) => (answer = resolve));
    };
    await enqueue(store, queueId, [aStatus("queued", "head-1")], now);
    replica.worker.kick(queueId);
    await vi.waitFor(() => expect(log.keys()).toEqual(["queued"]));
    await enqueue(store, queueId, [aStatus("testing", "head-1")], now);
    answer();
    await replica.drain([queueId]);
    expect(log.keys()).toEqual(["queued", "testing"]);
  });

  it("GitHub's rate limit on one repository holds only its commands, until retry-after and not before", async () => {
    const limited = await anOutboxQueue(store, "widgets");
    const limitedRelease = await anOutboxQueue(store, "widgets", "release");
    const other = await anOutboxQueue(store, "gadgets");
    let limitedOnce = false;
    replica.executor.behaviour = async (_, location) => {
      if (location.queueId !== limited || limitedOnce) return;
      limitedOnce = true;
      throw secondaryRateLimit(60);
    };
    await enqueue(store, limited, [aMerge("widgets merge"), aStatus("widgets status", "head-1")], now);
    await replica.drain([limited]);
    await enqueue(store, limitedRelease, [aTestBranch("widgets release branch")], now);
    await enqueue(store, other, [aMerge("gadgets merge"), aTestBranch("gadgets branch")], now);
    await replica.drain([limited, limitedRelease, other]);
    expect(log.keys(other)).toEqual(["gadgets merge", "gadgets branch"]);
    expect(log.keys(limitedRelease)).toEqual([]);

    now += 59_000;
    await replica.drain([limited, limitedRelease]);
    expect(log.count("widgets merge")).toBe(1);
    expect(log.keys(limitedRelease)).toEqual([]);

    now += 1_000;
    await replica.drain([limited, limitedRelease]);
    expect(log.count("widgets merge")).toBe(2);
    expect(log.keys(limitedRelease)).toEqual(["widgets release branch"]);
  });
});
