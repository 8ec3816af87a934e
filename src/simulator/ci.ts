// Simulated CI: one run per test branch head, its duration and flake drawn from the model, cancelled when
// its test branch is deleted (its minutes count until then).
import { type ContentKey, contentText } from "./content.ts";
import type { Day } from "./model.ts";
import { drawCi, MINUTE_MS } from "./model.ts";

export interface CiRun {
  /** The test branch it runs for: deleting the branch cancels it. */
  readonly branch: string;
  readonly sha: string;
  /** The set of PRs in the tested commit. */
  readonly content: ContentKey;
  readonly startedAt: number;
  /** When it reports (or would have). */
  readonly endsAt: number;
  readonly passes: boolean;
  /** It holds a broken PR, so it fails whatever CI's luck. */
  readonly broken: boolean;
  /**
   * Its first attempt failed only by known-flaky tests, so it was tested again on the same commit: the flake
   * evidence played inside CI (see `SimulationModel.knownFlaky`). It counts as two runs.
   */
  readonly retried: boolean;
  /** When it was cancelled, if before `endsAt`. */
  cancelledAt: number | null;
}

/** The CI minutes a run took: until its report, or until it was cancelled. */
export function minutesOf(run: CiRun): number {
  return ((run.cancelledAt ?? run.endsAt) - run.startedAt) / MINUTE_MS;
}

/** A retry's luck is drawn apart from the attempts of the queue's own runs. */
const RETRY_ATTEMPTS = 1_000_000;

export class SimulatedCi {
  readonly runs: CiRun[] = [];
  /** Test branch → the run on its head still going. */
  private readonly active = new Map<string, CiRun>();
  /** How often each set of PRs was tested so far: the attempt number of the next test of it. */
  private readonly attempts = new Map<string, number>();

  constructor(private readonly day: Day) {}

  /** Starts the run on a test branch's head; returns it so the caller can schedule its report. */
  start(
    branch: string,
    commit: { readonly sha: string; readonly content: ContentKey; readonly broken: boolean },
    now: number,
  ): CiRun {
    const setKey = contentText(commit.content);
    const attempt = this.attempts.get(setKey) ?? 0;
    this.attempts.set(setKey, attempt + 1);
    const draw = drawCi(this.day, commit.content, attempt);
    // Known-flaky failures are evidence only where nothing broken failed too: a broken PR's run fails anyway.
    const retried = !commit.broken && draw.knownFlake;
    const retry = retried ? drawCi(this.day, commit.content, attempt + RETRY_ATTEMPTS) : null;
    const run: CiRun = {
      branch,
      sha: commit.sha,
      content: commit.content,
      startedAt: now,
      endsAt: now + draw.durationMs + (retry?.durationMs ?? 0),
      passes: !commit.broken && !(retry ?? draw).flaky,
      broken: commit.broken,
      retried,
      cancelledAt: null,
    };
    this.runs.push(run);
    this.active.set(branch, run);
    return run;
  }

  /** The run reports: false when it was cancelled meanwhile. */
  finish(run: CiRun): boolean {
    if (run.cancelledAt !== null) return false;
    if (this.active.get(run.branch) === run) this.active.delete(run.branch);
    return true;
  }

  /** The test branch was deleted: its run stops. */
  cancel(branch: string, now: number): void {
    const run = this.active.get(branch);
    if (run === undefined) return;
    run.cancelledAt = now;
    this.active.delete(branch);
  }

  minutes(): number {
    return this.runs.reduce((sum, run) => sum + minutesOf(run), 0);
  }
}
