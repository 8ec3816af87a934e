// Each queue's parsed state, kept per process and keyed by the version of its saved state: a read checks the
// version (one small query, so every replica sees every other's steps at once) and parses the state document only
// when it changed. Parsing it on every read was most of the time a read request took.
import type { StoredQueueState } from "../ports/queue-storage.ts";
import type { QueueState } from "../queue/index.ts";
import type { Store } from "../store/database.ts";

/** Queues whose state stays parsed; the least recently read one goes first. */
const maxQueues = 256;
/** Values computed from one state (rendered records, listing pages): a poller asks for a few at most. */
const maxDerivedPerState = 16;

interface CachedState {
  version: number;
  state: QueueState;
}

export class QueueReadCache {
  readonly #states = new Map<string, CachedState>();
  readonly #derived = new WeakMap<QueueState, Map<string, unknown>>();

  /**
   * The queue's state as saved at `version` or later; `load` reads it when the cache holds an older one. The state
   * is shared between requests: the core never mutates a state, and neither may a reader.
   */
  async state(
    queueId: string,
    version: number,
    load: () => Promise<StoredQueueState | undefined>,
  ): Promise<QueueState | undefined> {
    const cached = this.#states.get(queueId);
    this.#states.delete(queueId);
    if (cached !== undefined && cached.version >= version) {
      this.#states.set(queueId, cached);
      return cached.state;
    }
    const stored = await load();
    if (stored === undefined) return undefined;
    const newest = this.#states.get(queueId);
    if (newest === undefined || newest.version < stored.version) {
      this.#states.set(queueId, { version: stored.version, state: stored.state });
      if (this.#states.size > maxQueues) this.#states.delete(this.#states.keys().next().value as string);
    }
    return stored.state;
  }

  /**
   * A value computed from `state`, or from data saved together with it (the queue's submissions), once per state.
   * `compute` runs after `state` was read, so what it reads is as new as `state` or newer.
   */
  async derived<T>(state: QueueState, key: string, compute: () => T | Promise<T>): Promise<T> {
    let values = this.#derived.get(state);
    if (values === undefined) {
      values = new Map();
      this.#derived.set(state, values);
    }
    if (values.has(key)) return values.get(key) as T;
    const value = await compute();
    values.set(key, value);
    if (values.size > maxDerivedPerState) values.delete(values.keys().next().value as string);
    return value;
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
