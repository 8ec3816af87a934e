// What the queue's runner keeps in storage: each queue's state, stepped under the queue's lock and saved with the
// commands it produced (the transactional outbox), the outbox itself and the webhook deliveries already handled.
// src/store/queue-storage.ts implements it.
import type { QueueCommand, QueueSettings, QueueState } from "../queue/index.ts";
import type { QueueLocation } from "./queue-location.ts";

export interface StoredQueueState {
  queueId: string;
  state: QueueState;
  version: number;
  nextCommandSeq: number;
}

export interface LocatedQueueState extends StoredQueueState {
  location: QueueLocation;
}

/** One dispatch's change to the queue: its new state, the commands it produced, and when. */
export interface QueueStepSegment {
  next: QueueState;
  commands: readonly QueueCommand[];
  now: number;
}

export interface QueueStep extends QueueStepSegment {
  stored: StoredQueueState;
  /**
   * The dispatches stepped before this one in the same transaction, in order, from `stored.state` on: their
   * commands and projections (records, transitions, counters) are saved as if each had been saved on its own.
   */
  through?: readonly QueueStepSegment[];
  /** Links of PRs in test run records: the core does not know the repository's URL. */
  prUrl: (prNumber: number) => string;
}

export interface NewQueue {
  id: string;
  repositoryId: string;
  branch: string;
  settings: QueueSettings;
}

/** A queue the scheduler must look at: a deadline passed, runs to poll, or mergeability to re-read. */
export interface QueueNeedingAttention {
  queueId: string;
  deadlinePassed: boolean;
  runsInFlight: boolean;
  awaitingMergeability: boolean;
}

export type OutboxLane = "effects" | "notifications";

export const outboxLanes: readonly OutboxLane[] = ["effects", "notifications"];

export interface PendingCommand {
  id: string;
  queueId: string;
  seq: number;
  command: QueueCommand;
  attempts: number;
}

/** Who claims a command, when, and for how long: the holder renews the lease while the command runs. */
export interface Claim {
  holder: string;
  now: number;
  leaseMs: number;
}

/** A webhook delivery processed for a queue: `key` names both. */
export interface DeliveryRecord {
  key: string;
  event: string;
  now: number;
}

/** What a use case does inside one queue's transaction: all of it is saved together or not at all. */
export interface QueueTransaction {
  loadQueueState(queueId: string): Promise<StoredQueueState | undefined>;
  /** `loadQueueState`, with where the queue is. */
  loadLocatedQueueState(queueId: string): Promise<LocatedQueueState | undefined>;
  /** Saves the new state, its commands and its projections. */
  saveQueueStep(step: QueueStep): Promise<void>;
  /**
   * Records that webhook deliveries were processed for the queue; answers the keys recorded now (the others
   * already were). Recorded here, a delivery counts as processed only together with its effect.
   */
  recordDeliveries(deliveries: readonly DeliveryRecord[]): Promise<Set<string>>;
  /** False when the command was completed already (by a replica that took over a lapsed claim). */
  completeCommand(id: string, now: number, error?: string | null): Promise<boolean>;
  /** Deletes the queue and everything that belongs to it. */
  deleteQueue(queueId: string): Promise<void>;
}

export interface QueueStorage {
  /**
   * Runs `work` in one transaction that holds the queue's lock across replicas. Storage may run the works of other
   * queues in the same transaction, and then runs `work` again, from the start, in a transaction of its own if
   * another queue's work or the commit failed: `work` does nothing outside the transaction it could not repeat.
   */
  inQueueTransaction<T>(queueId: string, work: (queue: QueueTransaction) => Promise<T>): Promise<T>;
  queueLocation(queueId: string): Promise<QueueLocation | undefined>;
  /** The state as of the last committed step. */
  loadQueueState(queueId: string): Promise<StoredQueueState | undefined>;
  /** The state this process last loaded or saved, without reading storage: a newer one may be saved since. */
  knownQueueState(queueId: string): QueueState | undefined;
  /** Creates the queue with its initial state; false when the repository already has a queue for the branch. */
  createQueue(queue: NewQueue, state: QueueState, now: number): Promise<boolean>;
  queuesNeedingAttention(now: number): Promise<QueueNeedingAttention[]>;
  purgeDeliveries(before: number): Promise<void>;
  /** The next command of the queue's lane, if it is due and no live claim holds it; claimed for `claim.holder`. */
  claimNextCommand(queueId: string, lane: OutboxLane, claim: Claim): Promise<PendingCommand | undefined>;
  /** Extends the leases of the commands the holder is running, if they are still its own. */
  renewClaims(ids: readonly string[], claim: Claim): Promise<void>;
  /** False when the command was completed already (by a replica that took over a lapsed claim). */
  completeCommand(id: string, now: number, error?: string | null): Promise<boolean>;
  /** A failed or paused command waits until `nextAttemptAt`; only the holder of its claim may postpone it. */
  postponeCommand(
    id: string,
    holder: string,
    retry: { attempts: number; nextAttemptAt: number; error: string },
  ): Promise<void>;
  queuesWithDueCommands(now: number): Promise<string[]>;
  purgeCompletedCommands(before: number): Promise<void>;
}
