import type { QueueCommand } from "./commands.ts";
import type { PullRequestEntry, QueueState, TestRun } from "./state.ts";

type Writable<T> = { -readonly [K in keyof T]: T[K] };

/** Fields of the state replaced as a whole. */
export type QueueScalars = Pick<
  QueueState,
  | "settings"
  | "status"
  | "pendingMode"
  | "target"
  | "merging"
  | "nextRunSeq"
  | "nextSubmissionSeq"
  | "branchRules"
  | "lastEvidenceAt"
  | "decisions"
>;

/**
 * The working copy of one step. `step` never mutates its input: the PR and run maps and the line are
 * copied on first write (once per step, not per change, which keeps a step over a long queue linear), and
 * entries are replaced, never edited, so unchanged entries stay shared with the input state.
 */
export class QueueDraft {
  readonly now: number;
  readonly commands: QueueCommand[] = [];
  /** PRs whose state changed in this step: they get one notification each, for their final state. */
  readonly transitioned = new Set<number>();
  private readonly original: QueueState;
  private readonly current: Writable<QueueState>;
  private ownPrs: Record<number, PullRequestEntry> | null = null;
  private ownRuns: Record<string, TestRun> | null = null;
  private ownLine: number[] | null = null;
  /** Counts writes, so a caller can tell whether something it ran changed anything. */
  private writes = 0;

  constructor(original: QueueState, now: number) {
    this.original = original;
    this.current = { ...original };
    this.now = now;
  }

  get state(): QueueState {
    return this.current;
  }

  pr(prNumber: number): PullRequestEntry | undefined {
    return this.current.prs[prNumber];
  }

  run(runId: string): TestRun | undefined {
    return this.current.runs[runId];
  }

  putPr(entry: PullRequestEntry): void {
    if (this.ownPrs === null) {
      this.ownPrs = { ...this.current.prs };
      this.current.prs = this.ownPrs;
    }
    this.ownPrs[entry.number] = entry;
    this.writes++;
  }

  putRun(run: TestRun): void {
    if (this.ownRuns === null) {
      this.ownRuns = { ...this.current.runs };
      this.current.runs = this.ownRuns;
    }
    this.ownRuns[run.id] = run;
    this.writes++;
  }

  /** The line, writable: callers keep it ordered (see ordering.ts). */
  mutableLine(): number[] {
    if (this.ownLine === null) {
      this.ownLine = [...this.current.line];
      this.current.line = this.ownLine;
    }
    this.writes++;
    return this.ownLine;
  }

  update(patch: Partial<QueueScalars>): void {
    Object.assign(this.current, patch);
    this.writes++;
  }

  get revision(): number {
    return this.writes;
  }

  emit(command: QueueCommand): void {
    this.commands.push(command);
  }

  /** The new state, or the input itself when nothing changed (the shell can skip saving). */
  result(): QueueState {
    return this.writes > 0 ? this.current : this.original;
  }
}
