// Executes each queue's outbox commands in order and feeds their results back as events.
import type { Logger } from "probot";
import type { QueueCommand, QueueEvent } from "../queue/index.ts";
import type { Store } from "../store/database.ts";
import { claimNextCommand, completeCommand, type PendingCommand, postponeCommand } from "../store/outbox.ts";
import { type QueueLocation, queueLocation } from "../store/queue-locations.ts";
import { type CommandExecutor, isTransient } from "./command-executor.ts";
import type { QueueRunner } from "./queue-runner.ts";
import type { GitHubPoller } from "./scheduler.ts";

/** A worker that dies mid-command loses its claim after this long; another replica then takes over. */
const leaseMs = 5 * 60_000;
const maxBackoffMs = 10 * 60_000;

/** Commands whose failure does not change what the queue decides: after a refusal they are given up. */
const cosmetic: ReadonlySet<QueueCommand["type"]> = new Set([
  "set_commit_status",
  "upsert_pr_comment",
  "delete_test_branch",
  "open_test_pull_request",
  "close_test_pull_request",
]);

export function backoffMs(attempts: number): number {
  return Math.min(maxBackoffMs, 1000 * 2 ** Math.min(attempts, 20));
}

export class OutboxWorker {
  readonly #draining = new Map<string, Promise<void>>();
  readonly #again = new Set<string>();

  constructor(
    private readonly deps: {
      store: Store;
      runner: QueueRunner;
      executor: CommandExecutor;
      github: GitHubPoller;
      clock: () => number;
      log: Logger;
    },
  ) {}

  /** Makes sure the queue's due commands get executed; concurrent kicks of one queue coalesce. */
  kick(queueId: string): void {
    if (this.#draining.has(queueId)) {
      this.#again.add(queueId);
      return;
    }
    const drain = this.#drain(queueId)
      .catch((error: unknown) => this.deps.log.error({ err: error, queueId }, "outbox drain failed"))
      .finally(() => {
        this.#draining.delete(queueId);
        if (this.#again.delete(queueId)) this.kick(queueId);
      });
    this.#draining.set(queueId, drain);
  }

  /** Resolves once no queue is being drained (tests and shutdown wait on it). */
  async idle(): Promise<void> {
    while (this.#draining.size > 0) await Promise.all(this.#draining.values());
  }

  async #drain(queueId: string): Promise<void> {
    const { store, clock } = this.deps;
    for (;;) {
      const pending = await claimNextCommand(store.db, queueId, clock(), leaseMs);
      if (pending === undefined) return;
      if (!(await this.#execute(pending))) return;
    }
  }

  /**
   * CI may report on a test branch between its creation and the dispatch that records its commit: that webhook
   * finds no run testing the commit and is dropped. So once the commit is recorded, the results already there are
   * read, instead of waiting for the next poll; any later result finds the run.
   */
  async #readEarlyResults(
    location: QueueLocation,
    queueId: string,
    events: readonly QueueEvent[],
  ): Promise<void> {
    const { runner, github, log } = this.deps;
    for (const event of events) {
      if (event.type !== "test_branch_created") continue;
      try {
        const reports = await github.ciReports(location, event.sha);
        if (reports.length === 0) continue;
        await runner.dispatch(
          queueId,
          reports.map((report) => ({ type: "status_reported", sha: event.sha, report })),
        );
      } catch (error) {
        log.warn(
          { err: error, queueId, sha: event.sha },
          "reading a new test branch's CI results failed; polling will",
        );
      }
    }
  }

  /** Returns whether the queue may go on with its next command. */
  async #execute(pending: PendingCommand): Promise<boolean> {
    const { store, runner, executor, clock, log } = this.deps;
    const location = await queueLocation(store.db, pending.queueId);
    if (location === undefined) return false;
    const context = { queueId: pending.queueId, command: pending.command.type, key: pending.command.key };
    try {
      const events = await executor.execute(location, pending.command);
      await runner.dispatch(pending.queueId, events, { completesCommandId: pending.id });
      await this.#readEarlyResults(location, pending.queueId, events);
      return true;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (!isTransient(error) && cosmetic.has(pending.command.type)) {
        log.warn({ ...context, err: error }, "GitHub refused a notification command; giving it up");
        await completeCommand(store.db, pending.id, clock(), message);
        return true;
      }
      const attempts = pending.attempts + 1;
      log.error({ ...context, err: error, attempts }, "command failed; it will be retried");
      await postponeCommand(store.db, pending.id, attempts, clock() + backoffMs(attempts), message);
      return false;
    }
  }
}
