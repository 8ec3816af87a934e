// The queue states this process last loaded or saved, parsed. A busy queue's state is tens of kilobytes of JSON
// and every step reads it: a step that finds the version it knows skips reading and parsing it again. The version
// is read in the step's own transaction, so a state another replica saved since is never taken from here.
import { inProgressRuns, type QueueState } from "../queue/index.ts";

/**
 * Queues whose states are kept: a process serving 1,000 queues keeps them all (the API's reads render answers from
 * them); beyond, the least recently used are read from the database as before.
 */
const CAPACITY = 1024;

export class QueueStateCache {
  readonly #states = new Map<string, { version: number; state: QueueState }>();
  /** The commits of the runs in flight in the states kept, each with its queue. */
  readonly #testing = new Map<string, string>();

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

  /**
   * The queue with a run in flight on commit `sha`, in the states kept; undefined when none is known to. A test
   * branch's commit is made by the runs of one queue only (it merges that queue's PRs onto its target), so the
   * queue named stays right even when another replica has ended the run since (its step then finds nothing to do);
   * a run started elsewhere is not known here, and is looked up in the database.
   */
  queueTestingAt(sha: string): string | undefined {
    return this.#testing.get(sha);
  }

  set(queueId: string, version: number, state: QueueState): void {
    this.#forget(queueId);
    this.#states.set(queueId, { version, state });
    for (const run of inProgressRuns(state)) {
      if (run.testBranchSha !== null) this.#testing.set(run.testBranchSha, queueId);
    }
    for (const oldest of this.#states.keys()) {
      if (this.#states.size <= CAPACITY) break;
      this.#forget(oldest);
    }
  }

  #forget(queueId: string): void {
    const kept = this.#states.get(queueId);
    if (kept === undefined) return;
    this.#states.delete(queueId);
    for (const run of inProgressRuns(kept.state)) {
      if (run.testBranchSha !== null && this.#testing.get(run.testBranchSha) === queueId) {
        this.#testing.delete(run.testBranchSha);
      }
    }
  }
}
