// The queue states this process last loaded or saved, parsed. A busy queue's state is tens of kilobytes of JSON
// and every step reads it: a step that finds the version it knows skips reading and parsing it again. The version
// is read in the step's own transaction, so a state another replica saved since is never taken from here.
import type { QueueState } from "../queue/index.ts";

/**
 * Queues whose states are kept: a process serving 1,000 queues keeps them all (the API's reads render answers from
 * them); beyond, the least recently used are read from the database as before.
 */
const CAPACITY = 1024;

export class QueueStateCache {
  readonly #states = new Map<string, { version: number; state: QueueState }>();

  /** The state saved as `version`, if this process knows it. */
  get(queueId: string, version: number): QueueState | undefined {
    const cached = this.#states.get(queueId);
    if (cached?.version !== version) return undefined;
    // Most recently used last, so the least recently used goes first.
    this.#states.delete(queueId);
    this.#states.set(queueId, cached);
    return cached.state;
  }

  /** The latest state this process knows, of whatever version: another replica may have saved a newer one. */
  latest(queueId: string): QueueState | undefined {
    return this.#states.get(queueId)?.state;
  }

  set(queueId: string, version: number, state: QueueState): void {
    this.#states.delete(queueId);
    this.#states.set(queueId, { version, state });
    for (const oldest of this.#states.keys()) {
      if (this.#states.size <= CAPACITY) break;
      this.#states.delete(oldest);
    }
  }
}
