import type {
  CheckRunReport,
  CommitStatusReport,
  PullRequestEntry,
  QueueCommand,
  QueueEvent,
  QueueSettings,
  QueueState,
  QueueStatus,
  TestRun,
} from "../../src/queue/index.ts";
import { DEFAULT_QUEUE_SETTINGS, initialQueueState, step } from "../../src/queue/index.ts";

export const T0 = Date.parse("2026-11-21T10:00:00.000Z");
export const MINUTE = 60_000;

/** A queue on `main` whose runs require the status `ci` (set on the queue, so no resolution round-trip). */
export function aQueue(settings: Partial<QueueSettings> = {}, status: QueueStatus = "running"): QueueState {
  return initialQueueState({
    queueId: "q",
    targetBranch: "main",
    targetHeadSha: "main-0",
    testBranchPrefix: "mq/",
    settings: { ...DEFAULT_QUEUE_SETTINGS, requiredStatuses: ["ci"], ...settings },
    status,
  });
}

export interface PrOptions {
  readonly priority?: number | null;
  readonly noBatch?: boolean;
  readonly submissionId?: string;
  readonly headSha?: string;
  readonly baseBranch?: string;
  readonly mergeability?: PullRequestEntry["mergeability"];
}

/** The submission of PR `number`: mergeable, on `main`, head `head-<number>`. */
export function aPr(number: number, options: PrOptions = {}): Extract<QueueEvent, { type: "pr_submitted" }> {
  return {
    type: "pr_submitted",
    submissionId: options.submissionId ?? `sub-${number}`,
    pr: {
      number,
      title: `Change ${number}`,
      headSha: options.headSha ?? `head-${number}`,
      baseBranch: options.baseBranch ?? "main",
      author: "octocat",
      mergeability: options.mergeability ?? "mergeable",
    },
    priority: options.priority ?? null,
    noBatch: options.noBatch ?? false,
  };
}

export function aCheckRun(overrides: Partial<CheckRunReport> = {}): CheckRunReport {
  return {
    kind: "check_run",
    name: "ci",
    id: 1,
    status: "completed",
    conclusion: "success",
    url: "https://ci.example/1",
    checkSuiteId: 7,
    ...overrides,
  };
}

export function aCommitStatus(overrides: Partial<CommitStatusReport> = {}): CommitStatusReport {
  return { kind: "status", name: "ci", id: 1, state: "success", url: "https://ci.example/s/1", ...overrides };
}

/** The sequence number of a run (`q-12` is 12): runs start in that order. */
function runSeq(run: TestRun): number {
  return Number(run.id.slice(run.id.lastIndexOf("-") + 1));
}

/** The SHA the scenario gives a run's test branch. */
export function branchShaOf(runId: string): string {
  return `tested-${runId}`;
}

/**
 * Drives a queue through events with a clock, keeping the commands of the last step, and answers the
 * shell's part the way tests usually need it ("the branch was created", "the merge went through").
 */
export class QueueScenario {
  state: QueueState;
  now = T0;
  commands: readonly QueueCommand[] = [];
  private mergeCount = 0;

  constructor(state: QueueState = aQueue()) {
    this.state = state;
  }

  on(event: QueueEvent): readonly QueueCommand[] {
    const result = step(this.state, event, this.now);
    this.state = result.state;
    this.commands = result.commands;
    return result.commands;
  }

  advance(minutes: number): this {
    this.now += minutes * MINUTE;
    return this;
  }

  submit(...numbers: number[]): this {
    for (const number of numbers) {
      this.on(aPr(number));
      this.now += 1;
    }
    return this;
  }

  /** Submits one PR with options (priority, noBatch…), a millisecond after the previous event. */
  submitWith(number: number, options: PrOptions): this {
    this.on(aPr(number, options));
    this.now += 1;
    return this;
  }

  /** Lets `minutes` pass and delivers the tick the shell sends at a deadline. */
  tick(minutes: number): this {
    this.advance(minutes).on({ type: "tick" });
    return this;
  }

  pr(number: number): PullRequestEntry {
    const pr = this.state.prs[number];
    if (pr === undefined) throw new Error(`PR #${number} was never submitted`);
    return pr;
  }

  stateOf(number: number): PullRequestEntry["state"] {
    return this.pr(number).state;
  }

  /** The latest run that tested PR `number`. */
  runOf(number: number): TestRun {
    const runId = this.pr(number).testRunId;
    const run = runId === null ? undefined : this.state.runs[runId];
    if (run === undefined) throw new Error(`PR #${number} was never tested`);
    return run;
  }

  /** Creates the test branches of every run in flight, front to back. */
  createBranches(): this {
    for (;;) {
      const run = Object.values(this.state.runs).find(
        (candidate) => candidate.status === "in_progress" && candidate.testBranchSha === null,
      );
      if (run === undefined) return this;
      this.on({ type: "test_branch_created", runId: run.id, sha: branchShaOf(run.id) });
    }
  }

  /** Every run so far, in the order they started. */
  runs(): TestRun[] {
    return Object.values(this.state.runs).sort((a, b) => runSeq(a) - runSeq(b));
  }

  /** The runs started after the first `count`, as `[PR numbers]` each: what the queue tested next. */
  testedSince(count: number): number[][] {
    return this.runs()
      .slice(count)
      .map((run) => run.prs.map((pr) => pr.number));
  }

  /**
   * The runs in flight of the main line (`"main"`) or of the bisection pool (`"side"`), as `[PR numbers]`
   * each, in the order they started.
   */
  inFlight(line: "main" | "side"): number[][] {
    return this.runs()
      .filter((run) => run.status === "in_progress" && (run.purpose === undefined) === (line === "main"))
      .map((run) => run.prs.map((pr) => pr.number));
  }

  /** Passes every run of the main line in flight and completes the merges, until the main line is idle. */
  passMainLine(): this {
    for (;;) {
      this.mergeAll();
      const [next] = this.inFlight("main");
      if (next === undefined) return this;
      this.passRun(...next);
    }
  }

  /** The run in flight testing exactly `prNumbers`. */
  runTesting(...prNumbers: number[]): TestRun {
    const run = Object.values(this.state.runs).find(
      (candidate) =>
        candidate.status === "in_progress" &&
        candidate.prs.map((pr) => pr.number).join(",") === prNumbers.join(","),
    );
    if (run === undefined) throw new Error(`no run in flight tests ${prNumbers.join(", ")}`);
    return run;
  }

  /** CI reports on the run in flight testing exactly `prNumbers`. */
  reportOn(prNumbers: readonly number[], report: CheckRunReport | CommitStatusReport): this {
    this.createBranches();
    const sha = this.runTesting(...prNumbers).testBranchSha as string;
    this.on({ type: "status_reported", sha, report });
    return this;
  }

  passRun(...prNumbers: number[]): this {
    return this.reportOn(prNumbers, aCheckRun());
  }

  failRun(...prNumbers: number[]): this {
    return this.reportOn(prNumbers, aCheckRun({ conclusion: "failure" }));
  }

  report(number: number, report: CheckRunReport | CommitStatusReport): this {
    this.createBranches();
    const sha = this.runOf(number).testBranchSha;
    if (sha === null) throw new Error(`the test branch of #${number} has no commit yet`);
    this.on({ type: "status_reported", sha, report });
    return this;
  }

  pass(number: number): this {
    return this.report(number, aCheckRun());
  }

  fail(number: number): this {
    return this.report(number, aCheckRun({ conclusion: "failure" }));
  }

  /** Completes the merge in flight as the executor would. */
  mergeSucceeds(): this {
    const merge = this.state.merging;
    if (merge === null) throw new Error("no merge in flight");
    this.mergeCount++;
    this.on({ type: "merge_succeeded", mergeId: merge.id, sha: `main-${this.mergeCount}` });
    return this;
  }

  /** Completes every merge as long as one is in flight. */
  mergeAll(): this {
    while (this.state.merging !== null) this.mergeSucceeds();
    return this;
  }

  commandsOf<T extends QueueCommand["type"]>(type: T): Extract<QueueCommand, { type: T }>[] {
    return this.commands.filter(
      (command): command is Extract<QueueCommand, { type: T }> => command.type === type,
    );
  }

  get line(): readonly number[] {
    return this.state.line;
  }
}

export function aScenario(
  settings: Partial<QueueSettings> = {},
  status: QueueStatus = "running",
): QueueScenario {
  return new QueueScenario(aQueue(settings, status));
}
