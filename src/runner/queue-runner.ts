// The shell around the queue core, a use case in the terms of docs/architecture.md: lock the queue, load its
// state, step, save the new state with its commands and projections in one transaction, then hand the commands
// to the worker.
import type { Logger } from "probot";
import { compact, type QueueEvent, type QueueState, step } from "../queue/index.ts";
import type { QueueLocation } from "../ports/queue-location.ts";
import type { QueueStorage } from "../ports/queue-storage.ts";
import { KeyedMutex } from "./keyed-mutex.ts";
import { logDecisions } from "./decision-log.ts";
import type { Clock } from "../ports/clock.ts";

export interface RunnerDependencies {
  store: QueueStorage;
  clock: Clock;
  log: Logger;
  /** A PR's web address, for test run records. */
  prUrl: (location: QueueLocation, prNumber: number) => string;
  /** Called after a step saved commands, so the worker executes them. */
  onCommandsSaved: (queueId: string) => void;
}

export interface DispatchOptions {
  /** The webhook delivery the events come from: a redelivery is ignored. */
  delivery?: { id: string; event: string };
  /** The outbox command whose result the events are: completed in the same transaction. */
  completesCommandId?: string;
}

export class QueueRunner {
  readonly #deps: RunnerDependencies;
  readonly #mutex = new KeyedMutex();

  constructor(deps: RunnerDependencies) {
    this.#deps = deps;
  }

  /** Applies events to a queue, one step each, atomically. Returns the new state (undefined: no queue). */
  async dispatch(
    queueId: string,
    events: readonly QueueEvent[],
    options: DispatchOptions = {},
  ): Promise<QueueState | undefined> {
    const { store, clock } = this.#deps;
    return this.#mutex.run(queueId, async () => {
      const location = await store.queueLocation(queueId);
      if (location === undefined) return undefined;
      const now = clock();
      const outcome = await store.inQueueTransaction(queueId, async (queue) => {
        const { delivery, completesCommandId } = options;
        if (
          delivery !== undefined &&
          !(await queue.recordDelivery(`${delivery.id}:${queueId}`, delivery.event, now))
        ) {
          return undefined;
        }
        // A command whose claim lapsed mid-run may have been run and reported by another replica already.
        if (completesCommandId !== undefined && !(await queue.completeCommand(completesCommandId, now))) {
          return undefined;
        }
        const stored = await queue.loadQueueState(queueId);
        if (stored === undefined) return undefined;
        let state = stored.state;
        const commands = [];
        for (const event of events) {
          const result = step(state, event, now);
          state = result.state;
          commands.push(...result.commands);
        }
        state = compact(state, now);
        if (state !== stored.state || commands.length > 0) {
          await queue.saveQueueStep({
            stored,
            next: state,
            commands,
            now,
            prUrl: (prNumber) => this.#deps.prUrl(location, prNumber),
          });
        }
        return { previous: stored.state, state, commandCount: commands.length };
      });
      if (outcome === undefined) return undefined;
      logDecisions(this.#deps.log, location, outcome.previous, outcome.state);
      if (outcome.commandCount > 0) this.#deps.onCommandsSaved(queueId);
      return outcome.state;
    });
  }

  /** Runs `action` while no step of the queue runs in this process. */
  exclusively<T>(queueId: string, action: () => Promise<T>): Promise<T> {
    return this.#mutex.run(queueId, action);
  }

  /** The queue's current state, without taking its lock (reads see the last committed step). */
  async read(queueId: string): Promise<QueueState | undefined> {
    return (await this.#deps.store.loadQueueState(queueId))?.state;
  }
}
