// The merge queue engine as the rest of the service sees it: queues are created, read, stepped and
// deleted here; commands are executed and timers run in the background.
import type { Logger } from "probot";
import {
  hasNonTerminalPullRequests,
  initialQueueState,
  type QueueEvent,
  type QueueState,
} from "../queue/index.ts";
import type { QueueLocation } from "../ports/queue-location.ts";
import type { QueueStorage } from "../ports/queue-persistence.ts";
import type { CommandExecutor } from "../ports/command-executor.ts";
import { OutboxWorker } from "./outbox-worker.ts";
import { QueueRunner } from "./queue-runner.ts";
import type { DispatchOptions, NewQueueRequest, QueueEngine } from "../ports/queue-engine.ts";
import type { GitHubPoller } from "../ports/github-poller.ts";
import { Scheduler, type SchedulerOptions } from "./scheduler.ts";
import type { Clock } from "../ports/clock.ts";

export interface EngineDependencies {
  store: QueueStorage;
  clock: Clock;
  log: Logger;
  executor: CommandExecutor;
  github: GitHubPoller;
  prUrl: (location: QueueLocation, prNumber: number) => string;
  testBranchPrefix: string;
  schedule: SchedulerOptions;
}

export class MergeQueueEngine implements QueueEngine {
  readonly runner: QueueRunner;
  readonly worker: OutboxWorker;
  readonly scheduler: Scheduler;

  constructor(private readonly deps: EngineDependencies) {
    this.runner = new QueueRunner({ ...deps, onCommandsSaved: (queueId) => this.worker.kick(queueId) });
    this.worker = new OutboxWorker({ ...deps, runner: this.runner });
    this.scheduler = new Scheduler({ ...deps, runner: this.runner, worker: this.worker }, deps.schedule);
  }

  /** Returns undefined when the repository already has a queue for the branch. */
  async createQueue(request: NewQueueRequest): Promise<QueueState | undefined> {
    const { store, clock, testBranchPrefix } = this.deps;
    const now = clock();
    const state = initialQueueState({
      queueId: request.queueId,
      targetBranch: request.branch,
      targetHeadSha: request.targetHeadSha,
      testBranchPrefix,
      settings: request.settings,
    });
    const queue = {
      id: request.queueId,
      repositoryId: request.repositoryId,
      branch: request.branch,
      settings: request.settings,
    };
    return (await store.createQueue(queue, state, now)) ? state : undefined;
  }

  read(queueId: string): Promise<QueueState | undefined> {
    return this.runner.read(queueId);
  }

  dispatch(
    queueId: string,
    events: readonly QueueEvent[],
    options?: DispatchOptions,
  ): Promise<QueueState | undefined> {
    return this.runner.dispatch(queueId, events, options);
  }

  /** deleteQueue (docs/api.md#merge-queue-endpoints): refused (false) while any PR is in a non-terminal state; checked under the queue's lock. */
  async deleteQueueIfEmpty(queueId: string): Promise<boolean> {
    const { store } = this.deps;
    return this.runner.exclusively(queueId, () =>
      store.inQueueTransaction(queueId, async (queue) => {
        const stored = await queue.loadQueueState(queueId);
        if (stored !== undefined && hasNonTerminalPullRequests(stored.state)) return false;
        await queue.deleteQueue(queueId);
        return true;
      }),
    );
  }

  start(): void {
    this.worker.start();
    this.scheduler.start();
  }

  async stop(): Promise<void> {
    await this.scheduler.stop();
    await this.worker.idle();
    this.worker.stop();
  }

  /** Resolves when every command that can run now has run (tests use it to reach a quiet queue). */
  async settle(): Promise<void> {
    await this.worker.idle();
  }
}
