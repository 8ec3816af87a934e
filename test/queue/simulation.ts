import { expect } from "vitest";
import type {
  QueueCommand,
  QueueEvent,
  QueueSettings,
  QueueState,
  QueueStatus,
} from "../../src/queue/index.ts";
import {
  acceptsNewSubmissions,
  DEFAULT_QUEUE_SETTINGS,
  initialQueueState,
  nextDeadline,
  step,
} from "../../src/queue/index.ts";
import type { Targets } from "./fake-github.ts";
import { change, FakeGitHub } from "./fake-github.ts";
import { checkInvariants } from "./invariants.ts";
import { LaneChecks } from "./lane-checks.ts";

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
export const TESTING_TIMEOUT_MINUTES = 30;

/** What happens to the outbox's next command: it runs once, runs twice, or runs and its result is lost. */
export type Crash = "none" | "replay" | "lost";

export type Action =
  | {
      readonly kind: "submit";
      readonly pr: number;
      readonly priority: number | null;
      readonly bad: boolean;
      readonly conflicts: boolean;
      readonly rejected: boolean;
      readonly mergeable: boolean;
      /** The targets its head impacts (docs/queue.md#parallel-lanes), set with every submission. */
      readonly targets: Targets;
    }
  | { readonly kind: "execute"; readonly crash: Crash }
  /** Runs the whole outbox, then receives every pending webhook, starting at `pick`. */
  | { readonly kind: "settle"; readonly pick: number }
  | { readonly kind: "ci"; readonly pick: number; readonly outcome: "pass" | "fail" | "flake" | "pending" }
  | { readonly kind: "deliver"; readonly pick: number; readonly twice: boolean }
  | { readonly kind: "redeliver"; readonly pick: number }
  | { readonly kind: "cancel"; readonly pr: number }
  | { readonly kind: "push_pr"; readonly pr: number }
  | { readonly kind: "push_outside" }
  | { readonly kind: "tick"; readonly minutes: number }
  | { readonly kind: "restart"; readonly pr: number }
  | { readonly kind: "mergeability"; readonly pr: number; readonly mergeable: boolean }
  /** The repository's own required checks (config file, branch protection): `ci`, or none at all. */
  | { readonly kind: "required_checks"; readonly none: boolean }
  | {
      readonly kind: "update_queue";
      readonly settings: Partial<QueueSettings>;
      readonly status?: QueueStatus;
    };

/** Results and webhooks that are safe to receive again at any later time: a repeat must change nothing. */
const REPEATABLE = new Set<QueueEvent["type"]>([
  "status_reported",
  "test_branch_created",
  "test_branch_conflict",
  "required_statuses_resolved",
  "merge_succeeded",
  "merge_failed",
  "target_branch_moved",
]);

const NOTIFICATIONS = new Set<QueueCommand["type"]>(["set_commit_status", "upsert_pr_comment"]);

const MERGE_COMMANDS = new Set<QueueCommand["type"]>(["fast_forward_target", "merge_pull_request"]);

/**
 * The whole loop of the service around the pure core: a fake GitHub, an outbox executed in order (with
 * crashes), webhooks delivered late, out of order and twice, and CI reporting flaky results. Invariants
 * are checked after every step.
 */
export class Simulation {
  readonly github = new FakeGitHub();
  state: QueueState;
  now = Date.parse("2026-11-21T10:00:00.000Z");
  readonly outbox: QueueCommand[] = [];
  /** Webhooks GitHub has sent and the service has not received yet. */
  readonly webhooks: QueueEvent[] = [];
  /** Events received so far that may be received again. */
  readonly received: QueueEvent[] = [];
  readonly keys = new Set<string>();
  readonly submitted = new Set<number>();
  /** What each run must test, as the queue stood when it started. */
  private readonly predictedContent = new Map<string, readonly string[]>();
  private readonly lanes = new LaneChecks(this.github);
  private maxConcurrency: number;
  /** The largest bisection pool the queue has had (it follows `concurrency` until set). */
  private maxBisectionConcurrency: number;
  private submissions = 0;

  /** A queue with these settings after every action, in order. */
  static played(settings: Partial<QueueSettings>, actions: readonly Action[]): Simulation {
    const simulation = new Simulation(settings);
    for (const next of actions) simulation.apply(next);
    return simulation;
  }

  constructor(settings: Partial<QueueSettings>) {
    const initial = {
      ...DEFAULT_QUEUE_SETTINGS,
      testingTimeoutMinutes: TESTING_TIMEOUT_MINUTES,
      ...settings,
    };
    this.maxConcurrency = initial.concurrency;
    this.maxBisectionConcurrency = initial.bisectionConcurrency ?? initial.concurrency;
    this.state = initialQueueState({
      queueId: "q",
      targetBranch: "main",
      targetHeadSha: this.github.target,
      testBranchPrefix: "mq/",
      settings: initial,
    });
  }

  receive(event: QueueEvent): void {
    if (event.type === "status_reported") this.github.observeDelivery(event);
    const before = this.state;
    // A report on a commit the queue does not know yet is dropped; polling brings it back later.
    const known = event.type !== "status_reported" || this.knowsCommit(event.sha);
    const { state, commands } = step(before, event, this.now);
    for (const command of commands) {
      expect(this.keys.has(command.key), `command key ${command.key} is used once`).toBe(false);
      this.checkNotificationIsTrue(state, command);
      this.keys.add(command.key);
      // docs/queue.md#queue-states: nothing starts merging while paused; a group already merging finishes.
      if (MERGE_COMMANDS.has(command.type) && before.merging === null)
        expect(state.status).not.toBe("paused");
    }
    if (state.nextRunSeq > before.nextRunSeq) {
      expect(state.status).not.toBe("paused");
      expect(state.pendingMode).toBeNull();
    }
    this.state = state;
    this.outbox.push(...commands);
    const { bisectionConcurrency, concurrency } = state.settings;
    this.maxBisectionConcurrency = Math.max(
      this.maxBisectionConcurrency,
      bisectionConcurrency ?? concurrency,
    );
    checkInvariants(state, { mainLine: this.maxConcurrency, bisectionPool: this.maxBisectionConcurrency });
    this.checkTestedContent(before, event);
    this.lanes.check(before, state);
    if (REPEATABLE.has(event.type) && known) this.received.push(event);
  }

  /** A PR is never shown testing before its run's required statuses are known: with none it never tests. */
  private checkNotificationIsTrue(state: QueueState, command: QueueCommand): void {
    const showsTesting =
      (command.type === "upsert_pr_comment" && command.body.includes("**Testing**")) ||
      (command.type === "set_commit_status" && command.description.startsWith("Testing in run"));
    if (!showsTesting) return;
    const pr = state.prs[command.prNumber];
    const run = pr?.testRunId == null ? undefined : state.runs[pr.testRunId];
    expect(
      run?.requiredStatuses,
      `#${command.prNumber} is shown testing with known required statuses`,
    ).not.toBeNull();
  }

  /**
   * docs/queue.md#testing: a run tests the target head it started on, plus every PR ahead, plus its own, merged in
   * that order, whatever commit its branch was built from.
   */
  private checkTestedContent(before: QueueState, event: QueueEvent): void {
    for (const run of Object.values(this.state.runs)) {
      if (before.runs[run.id] !== undefined) continue;
      const merged = [...run.dependsOn.map((prNumber) => this.state.prs[prNumber]), ...run.prs];
      this.predictedContent.set(run.id, [
        ...this.github.contentOf(this.state.target.headSha),
        ...merged.map((pr) => change(pr?.number ?? 0, pr?.headSha ?? "")),
      ]);
    }
    if (event.type !== "test_branch_created" || before.runs[event.runId]?.testBranchSha !== null) return;
    expect(this.github.contentOf(event.sha), `run ${event.runId} tests its predicted future`).toEqual(
      this.predictedContent.get(event.runId),
    );
  }

  private knowsCommit(sha: string): boolean {
    return Object.values(this.state.runs).some(
      (run) => run.status === "in_progress" && run.testBranchSha === sha,
    );
  }

  /** Receiving an event again changes nothing at all. */
  receiveAgain(event: QueueEvent): void {
    if (event.type === "status_reported") this.github.observeDelivery(event);
    const { state, commands } = step(this.state, event, this.now);
    expect(commands, `repeated ${event.type} emits nothing`).toEqual([]);
    expect(state, `repeated ${event.type} changes nothing`).toBe(this.state);
  }

  /** Executes the next command with an effect on the repository (notifications before it just run). */
  execute(crash: Crash): void {
    while (this.outbox[0] !== undefined && NOTIFICATIONS.has(this.outbox[0].type)) this.outbox.shift();
    const command = this.outbox.shift();
    if (command === undefined) return;
    const execution = this.github.execute(command);
    this.webhooks.push(...execution.webhooks);
    if (crash === "lost") {
      // The effect happened but the service died before recording it: the command runs again later.
      this.outbox.unshift(command);
      return;
    }
    for (const result of execution.results) this.receive(result);
    if (crash === "replay") {
      const again = this.github.execute(command);
      this.webhooks.push(...again.webhooks);
      for (const result of again.results) this.receiveAgain(result);
    }
  }

  submit(action: Extract<Action, { kind: "submit" }>): void {
    const pr = this.github.pullRequest(action.pr);
    if (pr.merged) return;
    const queued = this.state.line.includes(action.pr);
    if (!queued)
      Object.assign(pr, { bad: action.bad, conflicts: action.conflicts, rejected: action.rejected });
    pr.mergeable = action.mergeable;
    // The API refuses new submissions to a draining queue (docs/queue.md#queue-states).
    if (!queued && !acceptsNewSubmissions(this.state)) return;
    this.submitted.add(action.pr);
    this.submissions++;
    this.receive({
      type: "pr_submitted",
      submissionId: `s${this.submissions}`,
      pr: {
        number: pr.number,
        title: `Change ${pr.number}`,
        headSha: pr.head,
        baseBranch: "main",
        author: "octocat",
        mergeability: pr.mergeable ? "mergeable" : "not_mergeable",
      },
      priority: action.priority,
      noBatch: false,
    });
    // The CLI uploads the targets of the PR's head when it is submitted (docs/queue.md#parallel-lanes).
    this.receive({
      type: "impacted_targets_set",
      prNumber: pr.number,
      headSha: pr.head,
      targets: this.github.targetsOf(pr.number, pr.head, action.targets),
    });
    // The API reads the PR from GitHub on every submission; for a queued PR that is news of its mergeability.
    if (queued) {
      this.receive({
        type: "mergeability_observed",
        prNumber: pr.number,
        headSha: pr.head,
        mergeability: pr.mergeable ? "mergeable" : "not_mergeable",
      });
    }
  }

  apply(action: Action): void {
    this.now += SECOND;
    switch (action.kind) {
      case "submit":
        return this.submit(action);
      case "execute":
        return this.execute(action.crash);
      case "settle":
        while (this.outbox.length > 0) this.execute("none");
        this.webhooks.push(...this.webhooks.splice(0, action.pick % Math.max(this.webhooks.length, 1)));
        while (this.webhooks.length > 0) this.receive(this.webhooks.shift() as QueueEvent);
        return;
      case "ci": {
        // Test branches that still exist (runs in flight), now and then an older commit (late CI).
        const live = [...this.github.branches.values()];
        const commits = live.length > 0 && action.pick % 5 !== 0 ? live : this.github.testBranchCommits;
        const sha = commits[action.pick % Math.max(commits.length, 1)];
        if (sha !== undefined) this.webhooks.push(...this.github.ciReports(sha, action.outcome));
        return;
      }
      case "deliver": {
        const [event] = this.webhooks.splice(action.pick % Math.max(this.webhooks.length, 1), 1);
        if (event === undefined) return;
        this.receive(event);
        if (action.twice && REPEATABLE.has(event.type)) this.receiveAgain(event);
        return;
      }
      case "redeliver": {
        const event = this.received[action.pick % Math.max(this.received.length, 1)];
        if (event !== undefined) this.receiveAgain(event);
        return;
      }
      case "cancel":
        return this.receive({ type: "cancel_requested", prNumber: action.pr, reason: "cancelled_by_user" });
      case "push_pr":
        this.webhooks.push(this.github.pushToPullRequest(action.pr));
        return;
      case "push_outside":
        this.webhooks.push(this.github.pushOutside());
        return;
      case "tick":
        this.now += action.minutes * MINUTE;
        return this.receive({ type: "tick" });
      case "restart":
        return this.receive({ type: "restart_requested", prNumber: action.pr });
      case "mergeability": {
        const pr = this.github.pullRequest(action.pr);
        pr.mergeable = action.mergeable;
        return this.receive({
          type: "mergeability_observed",
          prNumber: action.pr,
          headSha: pr.head,
          mergeability: action.mergeable ? "mergeable" : "not_mergeable",
        });
      }
      case "required_checks":
        this.github.repoRequiredStatuses = action.none ? [] : ["ci"];
        return;
      case "update_queue":
        this.maxConcurrency = Math.max(this.maxConcurrency, action.settings.concurrency ?? 0);
        return this.receive({ type: "queue_updated", settings: action.settings, status: action.status });
    }
  }

  /**
   * Lets the world settle: the queue runs, every PR becomes mergeable, commands run, webhooks arrive and CI
   * answers (polling) for every run in flight, until nothing is left to happen.
   */
  drain(): void {
    this.receive({ type: "queue_updated", settings: {}, status: "running" });
    for (const prNumber of this.state.line) {
      const pr = this.github.pullRequest(prNumber);
      pr.mergeable = true;
      this.receive({ type: "mergeability_observed", prNumber, headSha: pr.head, mergeability: "mergeable" });
    }
    for (let round = 0; round < 2_000; round++) {
      if (this.outbox.length > 0) this.execute("none");
      else if (this.webhooks.length > 0) this.receive(this.webhooks.shift() as QueueEvent);
      else if (!this.pollCi() && !this.tickAtDeadline()) {
        // Nothing left to happen: every PR must have left the queue, without waiting for a timeout.
        const stuck = this.state.line.map((prNumber) => `#${prNumber} ${this.state.prs[prNumber]?.state}`);
        expect(stuck, "PRs still queued once everything was answered").toEqual([]);
        return;
      }
    }
    throw new Error("the queue did not come to rest");
  }

  /** The shell ticks at the queue's next deadline (a batch's wait, a timeout), if it has one. */
  private tickAtDeadline(): boolean {
    const deadline = nextDeadline(this.state);
    if (deadline === null) return false;
    this.now = Math.max(this.now, deadline);
    this.receive({ type: "tick" });
    return true;
  }

  /**
   * CI reports the final result on the commit of every run in flight that has one, but for a run whose failure
   * only waits for test results (flake-evidence.ts): CI answered it already, and its wait ends at a deadline.
   */
  private pollCi(): boolean {
    const waiting = Object.values(this.state.runs).filter(
      (run) =>
        run.status === "in_progress" && run.testBranchSha !== null && run.awaitingEvidence === undefined,
    );
    for (const run of waiting)
      this.webhooks.push(...this.github.ciReports(run.testBranchSha as string, "pass"));
    return waiting.length > 0;
  }
}
