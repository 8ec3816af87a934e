// The JSON answers computed from a queue's state (getQueue's record, a PR's record, a page of listPullRequests),
// kept per process, serialised, until the queue's next step: serialising its records was most of the time a read
// request took once the parsed state is shared (see QueueStateReads in the store).
import type { FastifyReply } from "fastify";
import type { Store } from "../store/database.ts";
import type { QueueSnapshot } from "../store/queue-storage.ts";

/** Characters of serialised answers kept (about as many bytes); the least recently read one goes first. */
const maxAnswerCharacters = 8 * 1024 * 1024;

export class QueueReadCache {
  readonly #answers = new Map<string, string>();
  #answerCharacters = 0;

  /**
   * The answer named `key` for the snapshot, rendered once. `render` may also read what is saved together with
   * the state (the queue's submissions): it runs after the snapshot was read, so it reads that data as of the
   * snapshot's version or later.
   */
  async answer(snapshot: QueueSnapshot, key: string, render: () => Promise<string>): Promise<string> {
    const name = `${snapshot.queueId}\n${snapshot.version}\n${key}`;
    const cached = this.#answers.get(name);
    if (cached !== undefined) {
      // Most recently read last, so the least recently read goes first.
      this.#answers.delete(name);
      this.#answers.set(name, cached);
      return cached;
    }
    const answer = await render();
    if (!this.#answers.has(name) && answer.length <= maxAnswerCharacters) {
      this.#answers.set(name, answer);
      this.#answerCharacters += answer.length;
      while (this.#answerCharacters > maxAnswerCharacters) {
        const oldest = this.#answers.keys().next().value as string;
        this.#answerCharacters -= (this.#answers.get(oldest) as string).length;
        this.#answers.delete(oldest);
      }
    }
    return answer;
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
