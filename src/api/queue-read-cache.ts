// The JSON answers computed from a queue's state (getQueue's record, a PR's record, a page of listPullRequests),
// kept per process, serialised, until the queue's next step: serialising its records was most of the time a read
// request took once the parsed state is shared (see QueueStateReads in the store).
import type { FastifyReply } from "fastify";
import type { QueueRecords } from "../ports/queue-records.ts";
import type { QueueState } from "../queue/index.ts";
import type { EdgeDependencies } from "../http/dependencies.ts";
import { type QueueVersionAccess, snapshotOf } from "./queue-access.ts";

/**
 * Characters of serialised answers kept (about as many bytes); the least recently read one goes first. Enough for
 * every answer of 1,000 queues of 20 PRs each (about 20 MB: a PR's record is about 300 bytes); with less, reads
 * spread over many queues keep rendering answers that were dropped a moment before.
 */
const maxAnswerCharacters = 32 * 1024 * 1024;

class QueueReadCache {
  readonly #answers = new Map<string, string>();
  #answerCharacters = 0;

  /** The answer named `key` for the queue's state saved as `version`, if this process rendered it. */
  get(queueId: string, version: number, key: string): string | undefined {
    const name = answerName(queueId, version, key);
    const cached = this.#answers.get(name);
    if (cached !== undefined) {
      // Most recently read last, so the least recently read goes first.
      this.#answers.delete(name);
      this.#answers.set(name, cached);
    }
    return cached;
  }

  set(queueId: string, version: number, key: string, answer: string): void {
    const name = answerName(queueId, version, key);
    if (this.#answers.has(name) || answer.length > maxAnswerCharacters) return;
    this.#answers.set(name, answer);
    this.#answerCharacters += answer.length;
    while (this.#answerCharacters > maxAnswerCharacters) {
      const oldest = this.#answers.keys().next().value as string;
      this.#answerCharacters -= (this.#answers.get(oldest) as string).length;
      this.#answers.delete(oldest);
    }
  }
}

const answerName = (queueId: string, version: number, key: string) => `${queueId}\n${version}\n${key}`;

const caches = new WeakMap<QueueRecords, QueueReadCache>();

/** The cache of the process's reads through `records`. */
function queueReadCache(records: QueueRecords): QueueReadCache {
  let cache = caches.get(records);
  if (cache === undefined) {
    cache = new QueueReadCache();
    caches.set(records, cache);
  }
  return cache;
}

/**
 * Answers with `render(state)`'s value as the route's response schema serialises it, rendered and serialised once
 * per saved state of the queue (the same bytes and content type as returning the value). The state is read only
 * to render: an answer cached for the version the request read needs none. `render` may also read what is saved
 * together with the state (the queue's submissions): it runs after the state was read, so it reads that data as
 * of the state's version or later.
 */
export async function sendQueueAnswer(
  reply: FastifyReply,
  deps: EdgeDependencies,
  access: QueueVersionAccess,
  key: string,
  render: (state: QueueState) => unknown,
): Promise<FastifyReply> {
  const cache = queueReadCache(deps.queueRecords);
  const queueId = access.queue.id;
  let json = cache.get(queueId, access.version, key);
  if (json === undefined) {
    const snapshot = await snapshotOf(deps, access);
    // The response schemas' serialisers (fast-json-stringify) produce strings.
    json = reply.serialize(await render(snapshot.state)) as string;
    cache.set(queueId, snapshot.version, key, json);
  }
  return reply.type("application/json; charset=utf-8").send(json);
}
