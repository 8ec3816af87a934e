// What one queue's page shows, as queue-page.ts reads it and queue-page-html.ts writes it.
import type { DepartedPullRequest } from "../../ports/queue-records.ts";
import type { BranchRulesView } from "../../presentation/branch-rules-view.ts";
import type { HourlySeries } from "./queue-charts.ts";

export interface CheckView {
  name: string;
  state: string;
  url: string;
}

/** A run as a train of boxes: the target's head, the PRs ahead it depends on, then its own PRs (its batch). */
export interface RunView {
  id: string;
  status: string;
  testBranch: string;
  basisSha: string;
  dependsOn: number[];
  batch: number[];
  checks: CheckView[];
}

export interface QueuedPullRequestView {
  position: number;
  number: number;
  url: string;
  title: string;
  author: string;
  state: string;
  priority: string;
  submittedAt: number;
  stateReason: string;
  stateDetail: string;
  run: RunView | null;
}

export interface DepartedView extends DepartedPullRequest {
  url: string;
  /** Whether this row is the PR's place on the page (#pr-<number>): its latest departure, while not queued again. */
  anchored: boolean;
}

export interface QueuePageView {
  repositoryName: string;
  branch: string;
  /** Below the service's root. */
  repositoryQueuesPath: string;
  state: string;
  now: number;
  pullRequests: QueuedPullRequestView[];
  departed: DepartedView[];
  charts: HourlySeries;
  settings: [string, string][];
  /** The target's rules on GitHub and how the queue honours them; null until read. */
  branchRules: BranchRulesView | null;
}
