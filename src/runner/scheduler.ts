// Timers of the queue: testing timeouts (tick), commands due for a retry, and polling GitHub so that a
// missed webhook or a lost command result never wedges a run (docs/queue.md#reliability), nor a PR whose mergeability GitHub
// was computing (docs/queue.md#readiness).
import type { Logger } from "probot";
import {
  mergeabilityRechecksDue,
  pullRequestsToRecheck,
  type QueueEvent,
  type QueueState,
} from "../queue/index.ts";
import type { QueueLocation } from "../ports/queue-location.ts";
import type { QueueStorage } from "../ports/queue-persistence.ts";
import type { GitHubPoller } from "../ports/github-poller.ts";
import type { OutboxWorker } from "./outbox-worker.ts";
import type { QueueRunner } from "./queue-runner.ts";
import type { Clock } from "../ports/clock.ts";

const hourMs = 3_600_000;

export interface SchedulerOptions {
  /** How often deadlines (mergeability rechecks among them) and due commands are checked. */
  tickIntervalMs: number;
  /** How often runs in flight and unsettled mergeability are read from GitHub. */
  pollIntervalMs: number;
}

export class Scheduler {
  #timer: NodeJS.Timeout | undefined;
  #lastPoll = 0;
  #lastPurge = 0;
  #running: Promise<void> | undefined;

  constructor(
    private readonly deps: {
      store: QueueStorage;
      runner: QueueRunner;
      worker: OutboxWorker;
      github: GitHubPoller;
      clock: Clock;
      log: Logger;
    },
    private readonly options: SchedulerOptions,
  ) {}

  start(): void {
    this.#timer = setInterval(() => void this.runOnce(), this.options.tickIntervalMs);
    this.#timer.unref();
    void this.runOnce();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running;
  }

  /** One pass; overlapping passes are skipped. `poll` forces the GitHub polling part. */
  async runOnce(options: { poll?: boolean } = {}): Promise<void> {
    if (this.#running !== undefined) return this.#running;
    this.#running = this.#pass(options.poll ?? false)
      .catch((error: unknown) => this.deps.log.error({ err: error }, "scheduler pass failed"))
      .finally(() => (this.#running = undefined));
    return this.#running;
  }

  async #pass(forcePoll: boolean): Promise<void> {
    const { store, runner, worker, clock } = this.deps;
    const now = clock();
    if (now - this.#lastPurge >= hourMs) {
      this.#lastPurge = now;
      await store.purgeCompletedCommands(now - 24 * hourMs);
      await store.purgeDeliveries(now - 7 * 24 * hourMs);
    }
    for (const queueId of await store.queuesWithDueCommands(now)) worker.kick(queueId);
    const poll = forcePoll || now - this.#lastPoll >= this.options.pollIntervalMs;
    if (poll) this.#lastPoll = now;
    for (const queue of await store.queuesNeedingAttention(now)) {
      const events: QueueEvent[] = queue.deadlinePassed ? [{ type: "tick" }] : [];
      if (poll && (queue.runsInFlight || queue.awaitingMergeability)) {
        events.push(...(await this.#pollGitHub(queue.queueId, { now, everything: true })));
      } else if (queue.deadlinePassed && queue.awaitingMergeability) {
        events.push(...(await this.#pollGitHub(queue.queueId, { now, everything: false })));
      }
      if (events.length > 0) await runner.dispatch(queue.queueId, events);
    }
  }

  /** Everything: runs in flight and every PR not ready; else only the mergeability rechecks due. */
  async #pollGitHub(queueId: string, scope: { now: number; everything: boolean }): Promise<QueueEvent[]> {
    const { store, runner, github, log } = this.deps;
    const [location, state] = await Promise.all([store.queueLocation(queueId), runner.read(queueId)]);
    if (location === undefined || state === undefined || location.installationId === null) return [];
    const events: QueueEvent[] = [];
    try {
      if (scope.everything) events.push(...(await this.#readRuns(location, state)));
      const prs = scope.everything ? pullRequestsToRecheck(state) : mergeabilityRechecksDue(state, scope.now);
      for (const prNumber of prs) {
        const pr = await github.pullRequest(location, prNumber);
        if (pr !== null) {
          events.push({
            type: "mergeability_observed",
            prNumber,
            headSha: pr.headSha,
            mergeability: pr.mergeability,
          });
        }
      }
    } catch (error) {
      log.warn({ err: error, queueId }, "polling GitHub failed; the next pass tries again");
    }
    return events;
  }

  /**
   * Whatever a run in flight is waiting for, read from GitHub: a result lost on its way (of a command whose
   * worker died or whose answer never arrived, or a webhook GitHub never delivered) must not wedge it.
   */
  async #readRuns(location: QueueLocation, state: QueueState): Promise<QueueEvent[]> {
    const { github } = this.deps;
    const events: QueueEvent[] = [];
    for (const run of Object.values(state.runs)) {
      if (run.status !== "in_progress") continue;
      if (run.requiredStatuses === null) {
        const resolved = await github.requiredStatuses(location, state.targetBranch);
        events.push({ type: "required_statuses_resolved", runId: run.id, ...resolved });
      }
      let sha = run.testBranchSha;
      if (sha === null && run.baseSha !== null) {
        // Only a branch holding everything the run tests counts: one half built is not reported.
        const ahead = run.dependsOn.flatMap((prNumber) => state.prs[prNumber]?.headSha ?? []);
        const commits = [run.baseSha, ...ahead, ...run.prs.map((pr) => pr.headSha)];
        sha = await github.builtBranchHead(location, run.testBranch, commits);
        if (sha !== null) events.push({ type: "test_branch_created", runId: run.id, sha });
      }
      if (sha === null) continue;
      for (const report of await github.ciReports(location, sha)) {
        events.push({ type: "status_reported", sha, report });
      }
    }
    return events;
  }
}
