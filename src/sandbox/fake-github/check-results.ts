// Commit statuses, check runs and check suites, per commit, as CI and the app report them.
import type { World } from "./world.ts";
import { validationFailed } from "./world.ts";

export type StatusState = "pending" | "success" | "failure" | "error";
export type CheckStatus = "queued" | "in_progress" | "completed";
export type CheckConclusion =
  | "success"
  | "failure"
  | "neutral"
  | "cancelled"
  | "skipped"
  | "timed_out"
  | "action_required"
  | "stale"
  | "startup_failure";

export interface CommitStatusRecord {
  readonly id: number;
  readonly sha: string;
  readonly state: StatusState;
  readonly context: string;
  readonly description: string | null;
  readonly targetUrl: string | null;
  readonly creator: string;
  readonly createdAt: string;
}

export interface CheckRunRecord {
  readonly id: number;
  readonly name: string;
  readonly headSha: string;
  readonly suiteId: number;
  readonly app: string;
  status: CheckStatus;
  conclusion: CheckConclusion | null;
  detailsUrl: string | null;
  readonly startedAt: string;
  completedAt: string | null;
}

export interface CheckSuiteRecord {
  readonly id: number;
  readonly headSha: string;
  readonly headBranch: string | null;
  readonly app: string;
  readonly createdAt: string;
}

const statusStates: readonly string[] = ["pending", "success", "failure", "error"];

// GitHub reports a suite by its worst run; this is that order, worst first.
const conclusionSeverity: readonly CheckConclusion[] = [
  "action_required",
  "startup_failure",
  "failure",
  "timed_out",
  "cancelled",
  "stale",
  "neutral",
  "skipped",
  "success",
];

export interface CheckRunReport {
  readonly status?: CheckStatus;
  readonly conclusion?: CheckConclusion;
  /** The GitHub App that owns the run (and its suite); `github-actions` unless told. */
  readonly app?: string;
  readonly detailsUrl?: string;
}

export interface CheckRunChange {
  readonly run: CheckRunRecord;
  readonly created: boolean;
  readonly completedNow: boolean;
  /** Set when this change completed the run's suite. */
  readonly suiteCompleted?: CheckSuiteRecord;
}

export class CiRecords {
  private readonly statuses: CommitStatusRecord[] = [];
  private readonly runs: CheckRunRecord[] = [];
  private readonly suites: CheckSuiteRecord[] = [];

  constructor(private readonly world: World) {}

  addStatus(
    sha: string,
    input: { state: string; context?: string; description?: string | null; targetUrl?: string | null },
    creator: string,
  ): CommitStatusRecord {
    if (!statusStates.includes(input.state)) {
      throw validationFailed({ resource: "Status", field: "state", code: "custom" });
    }
    const status: CommitStatusRecord = {
      id: this.world.nextId(),
      sha,
      state: input.state as StatusState,
      context: input.context ?? "default",
      description: input.description ?? null,
      targetUrl: input.targetUrl ?? null,
      creator,
      createdAt: this.world.now(),
    };
    this.statuses.push(status);
    return status;
  }

  /** Every status on `sha`, newest first, as `GET …/statuses` lists them. */
  statusesOf(sha: string): CommitStatusRecord[] {
    return this.statuses.filter((status) => status.sha === sha).reverse();
  }

  /** The latest status per context, oldest context first. */
  latestStatusesOf(sha: string): CommitStatusRecord[] {
    const latest = new Map<string, CommitStatusRecord>();
    for (const status of this.statuses) if (status.sha === sha) latest.set(status.context, status);
    return [...latest.values()];
  }

  /** GitHub's combined state: failure beats pending beats success, and no status at all is pending. */
  combinedState(sha: string): StatusState {
    const states = this.latestStatusesOf(sha).map((status) => status.state);
    if (states.some((state) => state === "failure" || state === "error")) return "failure";
    if (states.length === 0 || states.includes("pending")) return "pending";
    return "success";
  }

  /**
   * Records a check run: an unfinished run of the same name in the app's suite is updated; otherwise (first
   * report, or a re-run after completion) a new run is created, as CI does through the checks API.
   */
  reportCheckRun(
    sha: string,
    headBranch: string | null,
    name: string,
    report: CheckRunReport,
  ): CheckRunChange {
    const app = report.app ?? "github-actions";
    const status = report.status ?? (report.conclusion ? "completed" : "queued");
    if ((status === "completed") !== (report.conclusion !== undefined)) {
      throw new Error("a check run has a conclusion exactly when it is completed");
    }
    const suite = this.suiteFor(sha, headBranch, app);
    const open = this.runs.find(
      (run) => run.suiteId === suite.id && run.name === name && run.status !== "completed",
    );
    const now = this.world.now();
    const run: CheckRunRecord = open ?? {
      id: this.world.nextId(),
      name,
      headSha: sha,
      suiteId: suite.id,
      app,
      status,
      conclusion: null,
      detailsUrl: null,
      startedAt: now,
      completedAt: null,
    };
    if (!open) this.runs.push(run);
    run.status = status;
    run.conclusion = report.conclusion ?? null;
    run.completedAt = status === "completed" ? now : null;
    run.detailsUrl = report.detailsUrl ?? run.detailsUrl;
    const completedNow = status === "completed";
    // A run completing either finishes its suite or leaves it in progress: the suite completes at most once per run.
    const suiteCompleted = completedNow && this.suiteStatus(suite) === "completed" ? suite : undefined;
    return { run, created: !open, completedNow, ...(suiteCompleted && { suiteCompleted }) };
  }

  /** The latest run per name (what `filter=latest` answers), or every run. */
  checkRunsOf(sha: string, filter: "latest" | "all" = "latest"): CheckRunRecord[] {
    const all = this.runs.filter((run) => run.headSha === sha);
    if (filter === "all") return all.reverse();
    const latest = new Map<string, CheckRunRecord>();
    for (const run of all) latest.set(`${run.app}\0${run.name}`, run);
    return [...latest.values()].reverse();
  }

  suitesOf(sha: string): CheckSuiteRecord[] {
    return this.suites.filter((suite) => suite.headSha === sha);
  }

  suite(id: number): CheckSuiteRecord {
    const suite = this.suites.find((candidate) => candidate.id === id);
    if (!suite) throw new Error(`no check suite ${id}`);
    return suite;
  }

  suiteStatus(suite: CheckSuiteRecord): CheckStatus {
    const runs = this.runsOfSuite(suite);
    if (runs.length > 0 && runs.every((run) => run.status === "completed")) return "completed";
    return runs.some((run) => run.status !== "queued") ? "in_progress" : "queued";
  }

  suiteConclusion(suite: CheckSuiteRecord): CheckConclusion | null {
    if (this.suiteStatus(suite) !== "completed") return null;
    const conclusions = this.runsOfSuite(suite).map((run) => run.conclusion);
    return conclusionSeverity.find((conclusion) => conclusions.includes(conclusion)) ?? null;
  }

  runsOfSuite(suite: CheckSuiteRecord): CheckRunRecord[] {
    return this.runs.filter((run) => run.suiteId === suite.id);
  }

  private suiteFor(sha: string, headBranch: string | null, app: string): CheckSuiteRecord {
    const existing = this.suites.find((suite) => suite.headSha === sha && suite.app === app);
    if (existing) return existing;
    const suite = { id: this.world.nextId(), headSha: sha, headBranch, app, createdAt: this.world.now() };
    this.suites.push(suite);
    return suite;
  }
}
