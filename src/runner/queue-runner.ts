// The shell around the queue core, a use case in the terms of docs/architecture.md: lock the queue, load its
// state, step, save the new state with its commands and projections in one transaction, then hand the commands
// to the worker.
import type { Logger } from "probot";
import {
  compact,
  isInert,
  type QueueCommand,
  type QueueEvent,
  type QueueState,
  step,
} from "../queue/index.ts";
import type { QueueLocation } from "../ports/queue-location.ts";
import type { QueueStepSegment, QueueStorage } from "../ports/queue-persistence.ts";
import { KeyedMutex } from "./keyed-mutex.ts";
import { logDecisions } from "./decision-log.ts";
import type { Clock } from "../ports/clock.ts";
import type { DispatchOptions } from "../ports/queue-engine.ts";

export interface RunnerDependencies {
  store: QueueStorage;
  clock: Clock;
  log: Logger;
  /** A PR's web address, for test run records. */
  prUrl: (location: QueueLocation, prNumber: number) => string;
  /** Called after a step saved commands, so the worker executes them. */
  onCommandsSaved: (queueId: string) => void;
}

/** One call of `dispatch`, waiting for the queue's lock. */
interface PendingDispatch {
  events: readonly QueueEvent[];
  options: DispatchOptions;
  resolve: (state: QueueState | undefined) => void;
  reject: (error: unknown) => void;
}

/** A dispatch's own result: the state after its events, and the state before them (for the decision log). */
type DispatchOutcome = { previous: QueueState; state: QueueState } | undefined;

interface SteppedGroup {
  location: QueueLocation | undefined;
  /** One per dispatch of the group, in its order (none when the queue is gone). */
  outcomes: DispatchOutcome[];
  commandCount: number;
}

/**
 * Dispatches to a queue that arrive while one of its steps runs are stepped together once the lock is free: each
 * in arrival order with its own clock reading, exactly as one at a time, but loaded, saved and committed in one
 * transaction (a burst of CI webhooks costs one commit instead of one each).
 */
export class QueueRunner {
  readonly #deps: RunnerDependencies;
  readonly #mutex = new KeyedMutex();
  /** Per queue, the dispatches waiting for the lock that a newcomer may still join. */
  readonly #gathering = new Map<string, PendingDispatch[]>();

  constructor(deps: RunnerDependencies) {
    this.#deps = deps;
  }

  /** Applies events to a queue, one step each, atomically. Returns the new state (undefined: no queue). */
  dispatch(
    queueId: string,
    events: readonly QueueEvent[],
    options: DispatchOptions = {},
  ): Promise<QueueState | undefined> {
    return new Promise((resolve, reject) => {
      const dispatch = { events, options, resolve, reject };
      const gathering = this.#gathering.get(queueId);
      if (gathering !== undefined) {
        gathering.push(dispatch);
        return;
      }
      const group = [dispatch];
      this.#gathering.set(queueId, group);
      void this.#mutex
        .run(queueId, async () => {
          // Deliveries already received join first: on SQLite a step runs to its commit without letting I/O in,
          // so without this turn of the event loop no dispatch would ever find another gathering.
          await new Promise((resolve) => setImmediate(resolve));
          if (this.#gathering.get(queueId) === group) this.#gathering.delete(queueId);
          return this.#stepGroup(queueId, group);
        })
        // The callers have their answers by then: what fails after the commit (the decision log) is only logged.
        .catch((error: unknown) =>
          this.#deps.log.error({ err: error, queueId }, "after a queue step committed"),
        );
    });
  }

  async #stepGroup(queueId: string, group: readonly PendingDispatch[]): Promise<void> {
    let stepped: SteppedGroup;
    try {
      stepped = await this.#stepTogether(queueId, group);
    } catch (error) {
      if (group.length === 1) return group[0]!.reject(error);
      // One dispatch's failure must not fail those it was grouped with: alone, each succeeds or fails by itself.
      for (const dispatch of group) await this.#stepGroup(queueId, [dispatch]);
      return;
    }
    const { location, outcomes, commandCount } = stepped;
    for (const [index, dispatch] of group.entries()) dispatch.resolve(outcomes[index]?.state);
    if (location === undefined) return;
    for (const outcome of outcomes) {
      if (outcome !== undefined) logDecisions(this.#deps.log, location, outcome.previous, outcome.state);
    }
    if (commandCount > 0) this.#deps.onCommandsSaved(queueId);
  }

  /**
   * Steps the dispatches' events, each after the one before, and saves the result in one transaction; or, when
   * none of them can change the saved state, answers it without a transaction.
   */
  async #stepTogether(queueId: string, group: readonly PendingDispatch[]): Promise<SteppedGroup> {
    const { store, clock } = this.#deps;
    const nows = group.map(() => clock());
    const unchanged = await this.#inertOn(queueId, group, nows);
    if (unchanged !== undefined) {
      return {
        location: undefined,
        outcomes: group.map(() => ({ previous: unchanged, state: unchanged })),
        commandCount: 0,
      };
    }
    return store.inQueueTransaction(queueId, async (queue) => {
      const records = group.map(({ options: { delivery } }, index) =>
        delivery === undefined
          ? undefined
          : { key: `${delivery.id}:${queueId}`, event: delivery.event, now: nows[index]! },
      );
      // Recorded before the state is read, so that storage may do both in one round trip (on PostgreSQL, with the
      // lock); for a queue that is gone, the deliveries count as handled: there is nothing left for them to change.
      const recorded = await queue.recordDeliveries(records.filter((record) => record !== undefined));
      const stored = await queue.loadLocatedQueueState(queueId);
      if (stored === undefined) return { location: undefined, outcomes: [], commandCount: 0 };
      const { location } = stored;
      const outcomes: DispatchOutcome[] = [];
      const segments: QueueStepSegment[] = [];
      for (const [index, dispatch] of group.entries()) {
        const now = nows[index]!;
        const record = records[index];
        const { completesCommandId } = dispatch.options;
        const applies =
          // A delivery twice in the group is recorded once: its copy is a redelivery.
          (record === undefined || recorded.delete(record.key)) &&
          // A command whose claim lapsed mid-run may have been run and reported by another replica already.
          (completesCommandId === undefined || (await queue.completeCommand(completesCommandId, now)));
        if (!applies) {
          outcomes.push(undefined);
          continue;
        }
        const previous = segments.at(-1)?.next ?? stored.state;
        let state = previous;
        const commands: QueueCommand[] = [];
        for (const event of dispatch.events) {
          const result = step(state, event, now);
          state = result.state;
          commands.push(...result.commands);
        }
        state = compact(state, now);
        if (state !== previous || commands.length > 0) segments.push({ next: state, commands, now });
        outcomes.push({ previous, state });
      }
      const last = segments.at(-1);
      if (last !== undefined) {
        await queue.saveQueueStep({
          ...last,
          stored,
          through: segments.slice(0, -1),
          prUrl: (prNumber) => this.#deps.prUrl(location, prNumber),
        });
      }
      const commandCount = segments.reduce((count, segment) => count + segment.commands.length, 0);
      return { location, outcomes, commandCount };
    });
  }

  /**
   * The saved state, when every event of the group is inert on it (see `isInert`), else undefined. Such a group
   * records no delivery either: it changed nothing, so a redelivery of it may be stepped as if it were the first.
   * The state this process knows decides first, with no read; only an inert verdict is checked against the saved
   * version, since another replica may have stepped the queue since. A command's result is always stepped, for
   * its command is completed in the step's transaction.
   */
  async #inertOn(
    queueId: string,
    group: readonly PendingDispatch[],
    nows: readonly number[],
  ): Promise<QueueState | undefined> {
    const inert = (state: QueueState) =>
      group.every(
        ({ events, options }, index) =>
          options.completesCommandId === undefined &&
          events.length > 0 &&
          events.every((event) => isInert(state, event, nows[index]!)),
      );
    const known = this.#deps.store.knownQueueState(queueId);
    if (known === undefined || !inert(known)) return undefined;
    const saved = (await this.#deps.store.loadQueueState(queueId))?.state;
    return saved !== undefined && (saved === known || inert(saved)) ? saved : undefined;
  }

  /** Runs `action` while no step of the queue runs in this process; later dispatches wait for it. */
  exclusively<T>(queueId: string, action: () => Promise<T>): Promise<T> {
    this.#gathering.delete(queueId);
    return this.#mutex.run(queueId, action);
  }

  /** The queue's current state, without taking its lock (reads see the last committed step). */
  async read(queueId: string): Promise<QueueState | undefined> {
    return (await this.#deps.store.loadQueueState(queueId))?.state;
  }
}
