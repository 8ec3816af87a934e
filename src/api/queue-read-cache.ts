// Each queue's parsed state, kept per process and keyed by the version of its saved state: a read checks the
// version (one small query, so every replica sees every other's steps at once) and parses the state document only
// when it changed. The JSON answers computed from a state (getQueue's record, a PR's record, a page of
// listPullRequests) are kept too, serialised, until the queue's next step. Parsing the state on every read was
// most of the time a read request took, and serialising its records most of the rest.
import type { FastifyReply } from "fastify";
import type { StoredQueueState } from "../ports/queue-storage.ts";
import type { QueueState } from "../queue/index.ts";
import type { Store } from "../store/database.ts";

/** Queues whose state stays parsed; the least recently read one goes first. */
const maxQueues = 256;
/** Characters of serialised answers kept (about as many bytes); the least recently read one goes first. */
const maxAnswerCharacters = 8 * 1024 * 1024;

/** A queue's state as saved at `version`. */
export interface QueueSnapshot {
  queueId: string;
  version: number;
  /** Shared between requests: the core never mutates a state, and neither may a reader. */
  state: QueueState;
}

export class QueueReadCache {
  readonly #snapshots = new Map<string, QueueSnapshot>();
  readonly #answers = new Map<string, string>();
  #answerCharacters = 0;

  /** The queue's state as saved at `version` or later; `load` reads it when the cache holds an older one. */
  async snapshot(
    queueId: string,
    version: number,
    load: () => Promise<StoredQueueState | undefined>,
  ): Promise<QueueSnapshot | undefined> {
    const cached = this.#snapshots.get(queueId);
    if (cached !== undefined && cached.version >= version) {
      this.#touch(this.#snapshots, queueId, cached);
      return cached;
    }
    const stored = await load();
    if (stored === undefined) return undefined;
    const snapshot = { queueId, version: stored.version, state: stored.state };
    const newest = this.#snapshots.get(queueId);
    if (newest === undefined || newest.version < snapshot.version) {
      this.#touch(this.#snapshots, queueId, snapshot);
      if (this.#snapshots.size > maxQueues) this.#snapshots.delete(this.#oldest(this.#snapshots));
    }
    return snapshot;
  }

  /**
   * The answer named `key` for the snapshot, rendered once. `render` may also read what is saved together with
   * the state (the queue's submissions): it runs after the snapshot was read, so it reads that data as of the
   * snapshot's version or later.
   */
  async answer(snapshot: QueueSnapshot, key: string, render: () => Promise<string>): Promise<string> {
    const name = `${snapshot.queueId}\n${snapshot.version}\n${key}`;
    const cached = this.#answers.get(name);
    if (cached !== undefined) {
      this.#touch(this.#answers, name, cached);
      return cached;
    }
    const answer = await render();
    if (!this.#answers.has(name) && answer.length <= maxAnswerCharacters) {
      this.#answers.set(name, answer);
      this.#answerCharacters += answer.length;
      while (this.#answerCharacters > maxAnswerCharacters) {
        const oldest = this.#oldest(this.#answers);
        this.#answerCharacters -= (this.#answers.get(oldest) as string).length;
        this.#answers.delete(oldest);
      }
    }
    return answer;
  }

  #touch<V>(map: Map<string, V>, key: string, value: V): void {
    map.delete(key);
    map.set(key, value);
  }

  #oldest(map: Map<string, unknown>): string {
    return map.keys().next().value as string;
  }
}

const caches = new WeakMap<Store, QueueReadCache>();

/** The cache of the process's reads on `store`. */
export function queueReadCache(store: Store): QueueReadCache {
  let cache = caches.get(store);
  if (cache === undefined) {
    cache = new QueueReadCache();
    caches.set(store, cache);
  }
  return cache;
}

/**
 * Answers with `render()`'s value as the route's response schema serialises it, rendered and serialised once per
 * saved state of the queue (the same bytes and content type as returning the value).
 */
export async function sendQueueAnswer(
  reply: FastifyReply,
  store: Store,
  snapshot: QueueSnapshot,
  key: string,
  render: () => unknown,
): Promise<FastifyReply> {
  // The response schemas' serialisers (fast-json-stringify) produce strings.
  const json = await queueReadCache(store).answer(
    snapshot,
    key,
    async () => reply.serialize(await render()) as string,
  );
  return reply.type("application/json; charset=utf-8").send(json);
}
