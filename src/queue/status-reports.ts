/**
 * What CI reported on a test branch commit, as GitHub reports it (check_run / check_suite / status webhooks
 * and polling). Raw GitHub values are kept as strings: the mapping to pass / fail is a queue rule (docs/queue.md#testing).
 */
export interface CheckRunReport {
  readonly kind: "check_run";
  readonly name: string;
  /** GitHub's check run id: a re-run is a new check run with a higher id. */
  readonly id: number;
  readonly status: string;
  readonly conclusion: string | null;
  readonly url: string;
  readonly checkSuiteId: number | null;
}

export interface CommitStatusReport {
  readonly kind: "status";
  /** The status context. */
  readonly name: string;
  /** GitHub's status id: every state change of a context is a new status with a higher id. */
  readonly id: number;
  readonly state: string;
  readonly url: string;
}

export type StatusReport = CheckRunReport | CommitStatusReport;

type ReportOutcome = "pending" | "success" | "failure";

const PASSING_CONCLUSIONS: ReadonlySet<string> = new Set(["success", "neutral", "skipped"]);
const FAILING_CONCLUSIONS: ReadonlySet<string> = new Set([
  "failure",
  "cancelled",
  "timed_out",
  "action_required",
  "startup_failure",
]);
const FAILING_STATES: ReadonlySet<string> = new Set(["failure", "error"]);

/** docs/queue.md#testing; anything GitHub may add later (e.g. `stale`) counts as not finished. */
export function outcomeOf(report: StatusReport): ReportOutcome {
  if (report.kind === "status") {
    if (report.state === "success") return "success";
    return FAILING_STATES.has(report.state) ? "failure" : "pending";
  }
  if (report.status !== "completed" || report.conclusion === null) return "pending";
  if (PASSING_CONCLUSIONS.has(report.conclusion)) return "success";
  return FAILING_CONCLUSIONS.has(report.conclusion) ? "failure" : "pending";
}

export function reportKey(report: StatusReport): string {
  return `${report.kind}:${report.name}`;
}

function progressRank(report: StatusReport): number {
  if (outcomeOf(report) !== "pending") return 2;
  return report.kind === "check_run" && report.status === "in_progress" ? 1 : 0;
}

/**
 * Whether `incoming` replaces `recorded` for the same check. Webhooks arrive duplicated and out of order:
 * a report about an older check run or status (lower id) never wins, and for the same id the report that
 * got further wins, so a late "in_progress" cannot undo a completed check. Only a higher id, which GitHub
 * gives to a genuine re-run, can take a completed check back to pending.
 */
export function supersedes(incoming: StatusReport, recorded: StatusReport): boolean {
  if (incoming.id !== recorded.id) return incoming.id > recorded.id;
  return progressRank(incoming) > progressRank(recorded);
}

export type RunVerdict =
  | { readonly kind: "pending"; readonly waitingFor: readonly string[] }
  | { readonly kind: "succeeded" }
  | { readonly kind: "failed"; readonly name: string; readonly url: string };

/**
 * docs/queue.md#testing: a run succeeds when every required status succeeded, and fails as soon as one failed.
 * A required name is matched by check runs and commit statuses alike, as GitHub's branch protection does.
 */
export function judgeRun(
  requiredStatuses: readonly string[],
  reports: Readonly<Record<string, StatusReport>>,
): RunVerdict {
  const waitingFor: string[] = [];
  for (const name of requiredStatuses) {
    const found = [reports[`check_run:${name}`], reports[`status:${name}`]].filter(
      (report): report is StatusReport => report !== undefined,
    );
    const failing = found.find((report) => outcomeOf(report) === "failure");
    if (failing) return { kind: "failed", name, url: failing.url };
    if (found.length === 0 || found.some((report) => outcomeOf(report) !== "success")) waitingFor.push(name);
  }
  return waitingFor.length === 0 ? { kind: "succeeded" } : { kind: "pending", waitingFor };
}
