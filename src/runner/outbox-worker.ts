// Executes each queue's outbox commands, each lane in order, and feeds their results back as events.
import { randomUUID } from "node:crypto";
import type { Logger } from "probot";
import type { QueueCommand, QueueEvent } from "../queue/index.ts";
import type { QueueLocation } from "../ports/queue-location.ts";
import {
  type OutboxLane,
  outboxLanes,
  type PendingCommand,
  type QueueStorage,
} from "../ports/queue-persistence.ts";
import type { CommandExecutor } from "../ports/command-executor.ts";
import { GitHubUnavailable, isRateLimited, isTransient, rateLimitedUntil } from "../ports/github-failures.ts";
import type { QueueRunner } from "./queue-runner.ts";
import type { GitHubPoller } from "../ports/github-poller.ts";
import type { Clock } from "../ports/clock.ts";

/**
 * A claim lapses this long after its holder's last heartbeat: a replica killed mid-command holds up its queue's
 * lane no longer than this before another replica, or the restarted process, takes the command over.
 */
export const leaseMs = 9_000;
/** Three beats per lease: a live worker keeps its claims through two missed beats (a slow database). */
const heartbeatMs = leaseMs / 3;
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
  /** Names this worker's claims: a restarted process is a new holder, and the claims of the old one lapse. */
  readonly holder = randomUUID();
  readonly #draining = new Map<string, Promise<void>>();
  readonly #again = new Set<string>();
  /** Ids of the commands this worker is running: the heartbeat renews their claims. */
  readonly #running = new Set<string>();
  /** Repositories GitHub rate-limited, until when (epoch ms): their commands wait without asking GitHub. */
  readonly #rateLimited = new Map<string, number>();
  #heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly deps: {
      store: QueueStorage;
      runner: QueueRunner;
      executor: CommandExecutor;
      /** Only a new test branch's CI results are read here. */
      github: Pick<GitHubPoller, "ciReports">;
      clock: Clock;
      log: Logger;
    },
  ) {}

  /** Starts the heartbeat that keeps this worker's claims while their commands run. */
  start(): void {
    this.#heartbeat = setInterval(() => void this.heartbeat(), heartbeatMs);
    this.#heartbeat.unref();
  }

  stop(): void {
    clearInterval(this.#heartbeat);
  }

  /** Renews the leases of the commands this worker is running (the timer beats; tests step it). */
  async heartbeat(): Promise<void> {
    const { store, clock, log } = this.deps;
    try {
      await store.renewClaims([...this.#running], { holder: this.holder, now: clock(), leaseMs });
    } catch (error) {
      log.warn({ err: error }, "renewing outbox claims failed; the next beat tries again");
    }
  }

  /** Makes sure the queue's due commands get executed; concurrent kicks of one queue's lane coalesce. */
  kick(queueId: string): void {
    for (const lane of outboxLanes) this.#kickLane(queueId, lane);
  }

  /**
   * A queue's notifications wait while its effects run here: a merge or a new test branch is about to change what
   * they would say ("tests passed" becomes "merged", "queued" becomes "testing"), and a status or comment replaced
   * before it was sent is never sent (outbox.ts), so people see the same news for fewer writes to GitHub, whose
   * secondary limits count every one. The effects lane ends its drain when it can go no further (done, failed,
   * rate limited), so the wait lasts no longer than the effects themselves.
   */
  #kickLane(queueId: string, lane: OutboxLane): void {
    const key = `${lane}:${queueId}`;
    if (this.#draining.has(key) || (lane === "notifications" && this.#draining.has(`effects:${queueId}`))) {
      this.#again.add(key);
      return;
    }
    const drain = this.#drain(queueId, lane)
      .catch((error: unknown) => this.deps.log.error({ err: error, queueId, lane }, "outbox drain failed"))
      .finally(() => {
        this.#draining.delete(key);
        if (this.#again.delete(key)) this.#kickLane(queueId, lane);
        const held = `notifications:${queueId}`;
        if (lane === "effects" && !this.#draining.has(key) && this.#again.delete(held)) {
          this.#kickLane(queueId, "notifications");
        }
      });
    this.#draining.set(key, drain);
  }

  /** Resolves once no queue is being drained (tests and shutdown wait on it). */
  async idle(): Promise<void> {
    while (this.#draining.size > 0) await Promise.all(this.#draining.values());
  }

  async #drain(queueId: string, lane: OutboxLane): Promise<void> {
    const { store, clock } = this.deps;
    for (;;) {
      const claim = { holder: this.holder, now: clock(), leaseMs };
      const pending = await store.claimNextCommand(queueId, lane, claim);
      if (pending === undefined) return;
      this.#running.add(pending.id);
      try {
        if (!(await this.#execute(pending))) return;
      } finally {
        this.#running.delete(pending.id);
      }
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

  /** Returns whether the lane may go on with its next command. */
  async #execute(pending: PendingCommand): Promise<boolean> {
    const { store, runner, executor, clock, log } = this.deps;
    const location = await store.queueLocation(pending.queueId);
    if (location === undefined) return false;
    const limitedUntil = this.#rateLimitedUntil(location.repositoryId);
    if (limitedUntil !== undefined) {
      await store.postponeCommand(pending.id, this.holder, {
        attempts: pending.attempts,
        nextAttemptAt: limitedUntil,
        error: "waiting for GitHub's rate limit on the repository to lift",
      });
      return false;
    }
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
        await store.completeCommand(pending.id, clock(), message);
        return true;
      }
      const attempts = pending.attempts + 1;
      // GitHub said when to come back: the repository's other commands wait too rather than provoke it again,
      // and other repositories' queues go on.
      const retryAt = rateLimitedUntil(error, clock());
      if (retryAt !== undefined) this.#rateLimited.set(location.repositoryId, retryAt);
      const nextAttemptAt = retryAt ?? clock() + backoffMs(attempts);
      if (error instanceof GitHubUnavailable || isRateLimited(error)) {
        // GitHub out of reach or rate limiting passes, and the retry is the answer to it: a warning naming the
        // call, where a stack on every retry of an outage would read like a bug.
        log.warn({ ...context, attempts, nextAttemptAt }, `command failed; it will be retried: ${message}`);
      } else {
        log.error({ ...context, err: error, attempts, nextAttemptAt }, "command failed; it will be retried");
      }
      await store.postponeCommand(pending.id, this.holder, { attempts, nextAttemptAt, error: message });
      return false;
    }
  }

  #rateLimitedUntil(repositoryId: string): number | undefined {
    const until = this.#rateLimited.get(repositoryId);
    if (until === undefined || until > this.deps.clock()) return until;
    this.#rateLimited.delete(repositoryId);
    return undefined;
  }
}
