// The queue's records as the API and the pages show them (docs/api.md#records), read from the core's state.
import {
  DEFAULT_PRIORITY_NAME,
  isTerminal,
  knownFlakyFailures,
  priorityNameOf,
  queuePosition,
  readinessOf,
  skipsTheLine,
} from "../queue/index.ts";
import type {
  CheckRunReport,
  CommitStatusReport,
  ImpactedTargets,
  PullRequestEntry,
  PullRequestState,
  QueueSettings,
  QueueState,
  Readiness,
  RequiredStatusesSource,
  RunPurpose,
  StateReason,
  TestRun,
  TestRunStatus,
} from "../queue/index.ts";
import { type BranchRulesView, branchRulesView } from "./branch-rules-view.ts";

function iso(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

/** An item of getQueue's `enqueuedPullRequests` (docs/api.md#records). */
export interface EnqueuedPullRequestView {
  readonly id: string;
  readonly prNumber: number;
  readonly prTitle: string;
  readonly prSha: string;
  readonly prBaseBranch: string;
  readonly prAuthor: string;
  readonly stateChangedAt: string;
  readonly priorityValue: number;
  readonly priorityName: string;
  readonly skipTheLine: boolean;
  readonly noBatch: boolean;
  readonly usedDefaultPriorityName?: string;
}

/** The PR record (docs/api.md#records). */
export interface PullRequestView extends EnqueuedPullRequestView {
  readonly state: PullRequestState;
  readonly stateReason: StateReason;
  readonly stateDetail: string;
  readonly forceEnqueued: boolean;
  readonly isCurrentlySubmittedToQueue: boolean;
  readonly readiness: Readiness;
  readonly testRunId: string | null;
  /** 1-based, while queued. */
  readonly position: number | null;
}

function enqueuedView(pr: PullRequestEntry): EnqueuedPullRequestView {
  return {
    id: pr.submissionId,
    prNumber: pr.number,
    prTitle: pr.title,
    prSha: pr.headSha,
    prBaseBranch: pr.baseBranch,
    prAuthor: pr.author,
    stateChangedAt: iso(pr.stateChangedAt),
    priorityValue: pr.priorityValue,
    priorityName: priorityNameOf(pr.priorityValue),
    skipTheLine: skipsTheLine(pr.priorityValue),
    noBatch: pr.noBatch,
    ...(pr.usedDefaultPriority ? { usedDefaultPriorityName: DEFAULT_PRIORITY_NAME } : {}),
  };
}

/** The latest submission of a PR, or null when it was never submitted. */
export function pullRequestView(state: QueueState, prNumber: number): PullRequestView | null {
  const pr = state.prs[prNumber];
  if (pr === undefined) return null;
  return {
    ...enqueuedView(pr),
    state: pr.state,
    stateReason: pr.stateReason,
    stateDetail: pr.stateDetail,
    forceEnqueued: false,
    isCurrentlySubmittedToQueue: !isTerminal(pr.state),
    readiness: readinessOf(state, pr),
    testRunId: pr.testRunId,
    position: queuePosition(state, prNumber),
  };
}

/** Every non-terminal PR, in queue order (getQueue: docs/api.md#records). */
export function enqueuedPullRequests(state: QueueState): EnqueuedPullRequestView[] {
  return state.line.map((prNumber) => enqueuedView(state.prs[prNumber] as PullRequestEntry));
}

export type QueueView = Omit<QueueSettings, "bisectionConcurrency"> & {
  readonly state: "running" | "paused" | "draining" | "switching_modes";
  readonly branch: string;
  readonly bisectionConcurrency: number;
  /** The branch does not exist yet: PRs wait until it is pushed. */
  readonly waitingForBranch: boolean;
  readonly enqueuedPullRequests: EnqueuedPullRequestView[];
  /** Extension: the target's rules on GitHub and how the queue honours them; null until read. */
  readonly branchRules: BranchRulesView | null;
};

/** The queue record (docs/api.md#records). */
export function queueView(state: QueueState): QueueView {
  const { settings } = state;
  return {
    ...settings,
    state: state.pendingMode === null ? state.status : "switching_modes",
    branch: state.targetBranch,
    bisectionConcurrency: settings.bisectionConcurrency ?? settings.concurrency,
    waitingForBranch: state.target.awaitingBranch === true,
    enqueuedPullRequests: enqueuedPullRequests(state),
    branchRules: branchRulesView(state),
  };
}

export interface TestRunView {
  readonly id: string;
  readonly requiredStatuses: readonly string[];
  readonly requiredStatusesSource?: RequiredStatusesSource;
  readonly testBranch: string;
  /** Null until the branch exists (the run is `testing` from the moment it is planned). */
  readonly testBranchSha: string | null;
  readonly checkSuites: {
    readonly checkRuns: { name: string; url: string; status: string; conclusion: string | null }[];
  }[];
  readonly statusChecks: { context: string; url: string; state: string }[];
  readonly testedPullRequests: { prNumber: number; prUrl: string; title: string }[];
  readonly createdAt: string;
  readonly status: TestRunStatus;
  readonly dependentPrs: readonly number[];
  /** docs/queue.md#lanes: the union over `dependentPrs` and the tested PRs; ["ALL"] when one of them impacts every target. */
  readonly impactedTargets?: readonly string[];
  /** The same over the tested PRs only. */
  readonly impactedTargetsForTestedPrs?: readonly string[];
  /** Extension: the pool that ran it, and why (docs/queue.md#bisection, #flakes). */
  readonly purpose: "main" | RunPurpose;
  /** Extension: for a bisection or confirmation run, the failed run whose PRs it tests again. */
  readonly followsUpRunId: string | null;
  /** Extension: the tests that failed on its commit that test health knows as flaky or quarantined. */
  readonly knownFlakyFailures: readonly string[];
  /** Extension: it failed on those alone, so its PRs were tested again (docs/flake-evidence.md). */
  readonly flakyFailure: boolean;
}

/** The test run record (docs/api.md#records); `prUrl` builds a PR's URL, which the core does not know. */
export function testRunView(
  state: QueueState,
  runId: string,
  prUrl: (prNumber: number) => string,
): TestRunView | null {
  const run = state.runs[runId];
  if (run === undefined) return null;
  const reports = Object.values(run.reports);
  const suites = new Map<number | null, CheckRunReport[]>();
  for (const report of reports) {
    if (report.kind !== "check_run") continue;
    suites.set(report.checkSuiteId, [...(suites.get(report.checkSuiteId) ?? []), report]);
  }
  return {
    id: run.id,
    requiredStatuses: run.requiredStatuses ?? [],
    ...(run.requiredStatusesSource === null ? {} : { requiredStatusesSource: run.requiredStatusesSource }),
    testBranch: run.testBranch,
    testBranchSha: run.testBranchSha,
    checkSuites: [...suites.values()].map((checkRuns) => ({
      checkRuns: checkRuns.map(({ name, url, status, conclusion }) => ({ name, url, status, conclusion })),
    })),
    statusChecks: reports
      .filter((report): report is CommitStatusReport => report.kind === "status")
      .map(({ name, url, state: reportState }) => ({ context: name, url, state: reportState })),
    testedPullRequests: run.prs.map((pr) => ({
      prNumber: pr.number,
      prUrl: prUrl(pr.number),
      title: pr.title,
    })),
    createdAt: iso(run.startedAt),
    status: run.status,
    dependentPrs: run.dependsOn,
    ...impactedTargetsOf(state, run),
    purpose: run.purpose ?? "main",
    followsUpRunId: run.failedRunId ?? null,
    knownFlakyFailures: knownFlakyFailures(run),
    flakyFailure: run.endReason === "flaky_failure",
  };
}

/**
 * docs/api.md#records: the run's impacted targets, present only when every PR of it had targets for the head it was
 * tested at (a dependency at its current head: a newer head would have abandoned the run). "ALL" absorbs the
 * rest, and is shown as ["ALL"] since the field is a list.
 */
function impactedTargetsOf(
  state: QueueState,
  run: TestRun,
): Pick<TestRunView, "impactedTargets" | "impactedTargetsForTestedPrs"> {
  const tested = run.prs.map((pr) => uploadedTargets(state.prs[pr.number], pr.headSha));
  const dependencies = run.dependsOn.map((prNumber) => {
    const pr = state.prs[prNumber];
    return uploadedTargets(pr, pr?.headSha);
  });
  if (!tested.every(isUploaded) || !dependencies.every(isUploaded)) return {};
  return {
    impactedTargets: unionOf([...dependencies, ...tested]),
    impactedTargetsForTestedPrs: unionOf(tested),
  };
}

function uploadedTargets(
  pr: PullRequestEntry | undefined,
  headSha: string | undefined,
): ImpactedTargets["targets"] | undefined {
  const known = pr?.impactedTargets ?? null;
  return known !== null && known.headSha === headSha ? known.targets : undefined;
}

function isUploaded(targets: ImpactedTargets["targets"] | undefined): targets is ImpactedTargets["targets"] {
  return targets !== undefined;
}

function unionOf(targets: readonly ImpactedTargets["targets"][]): string[] {
  if (targets.includes("ALL")) return ["ALL"];
  return [...new Set(targets.flat())];
}
