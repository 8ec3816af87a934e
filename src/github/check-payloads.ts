// GitHub's check runs and commit statuses (webhook payloads and REST answers) → the core's StatusReport.
import type { CheckRunReport, CommitStatusReport } from "../queue/index.ts";

interface CheckRunLike {
  id: number;
  name: string;
  status: string;
  conclusion: string | null;
  html_url?: string | null;
  details_url?: string | null;
  check_suite?: { id?: number | undefined } | null;
}

interface CommitStatusLike {
  id: number;
  context: string;
  state: string;
  target_url?: string | null;
}

export function checkRunReport(run: CheckRunLike): CheckRunReport {
  return {
    kind: "check_run",
    name: run.name,
    id: run.id,
    status: run.status,
    conclusion: run.conclusion,
    url: run.html_url ?? run.details_url ?? "",
    checkSuiteId: run.check_suite?.id ?? null,
  };
}

export function commitStatusReport(status: CommitStatusLike): CommitStatusReport {
  return {
    kind: "status",
    name: status.context,
    id: status.id,
    state: status.state,
    url: status.target_url ?? "",
  };
}
