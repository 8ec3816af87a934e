// Replicas of the outbox worker over one database, executing commands with a fake executor that records
// every execution: what the outbox tests count and order.
import { pino, type Logger } from "pino";
import { DEFAULT_QUEUE_SETTINGS, initialQueueState, type QueueCommand } from "../../src/queue/index.ts";
import type { CommandExecutor } from "../../src/ports/command-executor.ts";
import { OutboxWorker } from "../../src/runner/outbox-worker.ts";
import { QueueRunner } from "../../src/runner/queue-runner.ts";
import type { Store } from "../../src/store/database.ts";
import type { QueueLocation } from "../../src/ports/queue-location.ts";
import { insertQueueState, loadQueueState, lockQueue, saveQueueStep } from "../../src/store/queue-states.ts";
import { insertQueue } from "../../src/store/queues.ts";
import { rememberRepository } from "../../src/store/repositories.ts";

/** A queue on `branch` of the repository acme/`name`; returns its id. */
export async function anOutboxQueue(store: Store, name: string, branch = "main", now = 0): Promise<string> {
  const repository = await rememberRepository(
    store.db,
    { host: "github.com", owner: "acme", name, installationId: 7 },
    now,
  );
  const state = initialQueueState({
    queueId: `${name}-${branch}`,
    targetBranch: branch,
    targetHeadSha: "main-0",
    testBranchPrefix: "mq/",
    settings: DEFAULT_QUEUE_SETTINGS,
  });
  const settings = DEFAULT_QUEUE_SETTINGS;
  await store.db.transaction().execute(async (trx) => {
    await insertQueue(trx, { id: state.queueId, repositoryId: repository.id, branch, settings }, now);
    await insertQueueState(trx, state, now);
  });
  return state.queueId;
}

/** Adds commands to a queue's outbox as a step of the queue core would. */
export async function enqueue(
  store: Store,
  queueId: string,
  commands: readonly QueueCommand[],
  now = 0,
): Promise<void> {
  await store.db.transaction().execute(async (trx) => {
    await lockQueue(trx, store.dialect, queueId);
    const stored = (await loadQueueState(trx, queueId))!;
    await saveQueueStep(trx, { stored, next: stored.state, commands, now, prUrl: String });
  });
}

export const aStatus = (
  key: string,
  sha: string,
  state: "pending" | "success" = "pending",
): QueueCommand => ({
  type: "set_commit_status",
  key,
  prNumber: 1,
  sha,
  context: "Switchyard Merge Queue (main)",
  state,
  description: key,
});

export const aComment = (key: string, submissionId: string): QueueCommand => ({
  type: "upsert_pr_comment",
  key,
  prNumber: 1,
  submissionId,
  body: key,
  progress: false,
  editOnly: false,
});

export const aMerge = (key: string): QueueCommand => ({
  type: "merge_pull_request",
  key,
  mergeId: key,
  prNumber: 1,
  headSha: "head-1",
  method: "squash",
  expectedTargetSha: "main-0",
  commitTitle: key,
});

export const aTestBranch = (key: string): QueueCommand => ({
  type: "create_test_branch",
  key,
  runId: key,
  branch: `mq/main/${key}`,
  baseSha: "main-0",
  prs: [],
  resolveRequiredStatusesOf: null,
  reproducible: false,
});

/** Every execution of every replica, in the order they started. */
export class ExecutionLog {
  readonly started: { queueId: string; key: string; replica: string }[] = [];

  keys(queueId?: string): string[] {
    return this.started
      .filter((run) => queueId === undefined || run.queueId === queueId)
      .map((run) => run.key);
  }

  count(key: string): number {
    return this.started.filter((run) => run.key === key).length;
  }
}

/**
 * Runs commands by recording them. `behaviour` decides what a command does after it is recorded: by default it
 * succeeds at once; it may wait (a slow GitHub), never finish (a replica killed mid-command) or throw.
 */
export class RecordingExecutor implements CommandExecutor {
  behaviour: (command: QueueCommand, location: QueueLocation) => Promise<void> = async () => {};

  constructor(
    private readonly log: ExecutionLog,
    private readonly replica: string,
  ) {}

  async execute(location: QueueLocation, command: QueueCommand) {
    this.log.started.push({ queueId: location.queueId, key: command.key, replica: this.replica });
    await this.behaviour(command, location);
    return [];
  }
}

/** One replica of the service's outbox: its own runner and worker, on its own store (connection pool). */
export class OutboxReplica {
  readonly executor: RecordingExecutor;
  readonly worker: OutboxWorker;

  constructor(
    store: Store,
    log: ExecutionLog,
    name: string,
    clock: () => number,
    logger: Logger = pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" }),
  ) {
    this.executor = new RecordingExecutor(log, name);
    const runner = new QueueRunner({
      store,
      clock,
      log: logger,
      prUrl: (_, number) => `https://github.com/acme/widgets/pull/${number}`,
      onCommandsSaved: (queueId) => this.worker.kick(queueId),
    });
    this.worker = new OutboxWorker({
      store,
      runner,
      executor: this.executor,
      github: { ciReports: async () => [] },
      clock,
      log: logger,
    });
  }

  /** What the scheduler's pass does for these queues: execute whatever is due. */
  async drain(queueIds: readonly string[]): Promise<void> {
    for (const queueId of queueIds) this.worker.kick(queueId);
    await this.worker.idle();
  }
}
