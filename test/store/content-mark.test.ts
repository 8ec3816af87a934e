// What the service remembers of its database between requests (a token, a queue's version) is never answered once
// the database changed: neither after the service's own write nor after another process's (`switchyard token revoke`
// runs in its own process, on its own connection).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ContentMemo } from "../../src/store/content-mark.ts";
import { openDatabase, type Store } from "../../src/store/database.ts";
import { rememberRepository } from "../../src/store/repositories.ts";
import { findInstalledRepositoryQueue } from "../../src/store/queue-versions.ts";
import { authenticate, createToken, revokeToken } from "../../src/store/tokens.ts";
import { DEFAULT_QUEUE_SETTINGS, initialQueueState, step } from "../../src/queue/index.ts";
import { aPr } from "../support/queue-factories.ts";
import { createTestStore, type TestStore } from "../support/database.ts";

const repo = { host: "github.com", owner: "acme", name: "widgets" };
/** Another connection's commits are looked for once per turn of the event loop; a request comes in a later one. */
const nextRequest = () => new Promise((resolve) => setImmediate(resolve));

describe("values remembered while the SQLite database is unchanged", () => {
  let store: TestStore;
  let otherProcess: Store;
  beforeEach(async () => {
    store = await createTestStore("sqlite");
    otherProcess = openDatabase(store.databaseUrl);
  });
  afterEach(async () => {
    await otherProcess.close();
    await store.destroy();
  });

  it("reads once while nothing writes, and again after a write of this connection or another's", async () => {
    const memo = new ContentMemo<number>(10);
    let reads = 0;
    const read = async () => ++reads;
    expect(await memo.get(store.db, "k", read)).toBe(1);
    expect(await memo.get(store.db, "k", read)).toBe(1);
    await createToken(store.db, { organization: "acme", owners: [], host: "github.com", now: 1 });
    expect(await memo.get(store.db, "k", read)).toBe(2);
    expect(await memo.get(store.db, "k", read)).toBe(2);
    await createToken(otherProcess.db, { organization: "acme", owners: [], host: "github.com", now: 1 });
    await nextRequest();
    expect(await memo.get(store.db, "k", read)).toBe(3);
  });

  it("keeps each database's values apart", async () => {
    const memo = new ContentMemo<string>(10);
    const other = await createTestStore("sqlite");
    try {
      expect(await memo.get(store.db, "k", async () => "first")).toBe("first");
      expect(await memo.get(other.db, "k", async () => "second")).toBe("second");
      expect(await memo.get(store.db, "k", async () => "again")).toBe("first");
    } finally {
      await other.destroy();
    }
  });

  it("a value read while a write was on its way is not answered after it", async () => {
    const memo = new ContentMemo<string>(10);
    const reading = memo.get(store.db, "k", async () => {
      await createToken(store.db, { organization: "acme", owners: [], host: "github.com", now: 1 });
      return "read before the write committed";
    });
    await reading;
    expect(await memo.get(store.db, "k", async () => "read after")).toBe("read after");
  });

  it("a token revoked by another process is refused at the next request", async () => {
    const { id, token } = await createToken(store.db, {
      organization: "acme",
      owners: [],
      host: "github.com",
      now: 1,
    });
    expect(await authenticate(store.db, token, 2)).not.toBeNull();
    expect(await authenticate(store.db, token, 3)).not.toBeNull();
    await revokeToken(otherProcess.db, id, 4);
    await nextRequest();
    expect(await authenticate(store.db, token, 5)).toBeNull();
  });

  it("a wrong secret is refused even when its token was remembered", async () => {
    const { token } = await createToken(store.db, {
      organization: "acme",
      owners: [],
      host: "github.com",
      now: 1,
    });
    expect(await authenticate(store.db, token, 2)).not.toBeNull();
    const wrong = token.slice(0, -1) + (token.endsWith("A") ? "B" : "A");
    expect(await authenticate(store.db, wrong, 3)).toBeNull();
  });

  it("a queue's version read by a request follows each step saved", async () => {
    const repository = await rememberRepository(store.db, { ...repo, installationId: 1 }, 1);
    const state = initialQueueState({
      queueId: "queue1",
      targetBranch: "main",
      targetHeadSha: "a".repeat(40),
      testBranchPrefix: "mq/",
      settings: DEFAULT_QUEUE_SETTINGS,
    });
    await store.createQueue(
      { id: "queue1", repositoryId: repository.id, branch: "main", settings: state.settings },
      state,
      1,
    );
    const before = (await findInstalledRepositoryQueue(store.db, repo, "main"))!.queue.version;
    expect((await findInstalledRepositoryQueue(store.db, repo, "MAIN"))!.queue.version).toBe(before);
    await otherProcess.inQueueTransaction("queue1", async (trx) => {
      const stored = (await trx.loadQueueState("queue1"))!;
      await trx.saveQueueStep({
        stored,
        next: step(state, aPr(1), 2).state,
        commands: [],
        now: 2,
        prUrl: String,
      });
    });
    await nextRequest();
    expect((await findInstalledRepositoryQueue(store.db, repo, "main"))!.queue.version).toBe(before + 1);
  });
});
