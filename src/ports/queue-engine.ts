// The queues as the edges (the /v1 routes, the pages, the webhooks) drive them: read a queue's state, step
// events into it, create and delete queues. src/runner/engine.ts implements it.
import type { QueueEvent, QueueSettings, QueueState } from "../queue/index.ts";

export interface NewQueueRequest {
  queueId: string;
  repositoryId: string;
  branch: string;
  /** Null when the branch does not exist yet. */
  targetHeadSha: string | null;
  settings: QueueSettings;
}

export interface DispatchOptions {
  /** The webhook delivery the events come from: a redelivery is ignored. */
  delivery?: { id: string; event: string };
  /** The outbox command whose result the events are: completed in the same transaction. */
  completesCommandId?: string;
}

export interface QueueEngine {
  /** Undefined when the repository already has a queue for the branch. */
  createQueue(request: NewQueueRequest): Promise<QueueState | undefined>;
  /** Undefined when there is no such queue (any more). */
  read(queueId: string): Promise<QueueState | undefined>;
  /** Steps the events into the queue, in order, under its lock; its state after them. */
  dispatch(
    queueId: string,
    events: readonly QueueEvent[],
    options?: DispatchOptions,
  ): Promise<QueueState | undefined>;
  /** Refused (false) while any PR is in a non-terminal state. */
  deleteQueueIfEmpty(queueId: string): Promise<boolean>;
}
