import type { QueueMode, QueueSettings } from "./settings.ts";
import type { BranchRulesState } from "./branch-rule-facts.ts";
import type { StatusReport } from "./status-reports.ts";

/** The state a user sets (docs/queue.md#queue-states); `switching_modes` is derived from `pendingMode`. */
export type QueueStatus = "running" | "paused" | "draining";

/** PR states (docs/queue.md#pr-states). */
export type PullRequestState =
  | "not_ready"
  | "pending"
  | "testing"
  | "tests_passed"
  | "pending_failure"
  | "merged"
  | "failed"
  | "cancelled";

export type ProviderMergeability = "unspecified" | "in_progress" | "mergeable" | "not_mergeable";

/** Why a PR was cancelled (docs/queue.md#pr-states, #what-the-pr-shows). */
export type CancelReason =
  "cancelled_by_user" | "pr_closed" | "pr_updated" | "pr_draft" | "base_changed" | "merged_outside_queue";

/** Why a PR failed, or why its run failed while the decision waits (docs/queue.md#pr-states, #testing, #merging). */
export type FailureReason =
  | "merge_conflict"
  | "tests_failed"
  | "timeout"
  | "no_required_statuses"
  | "merge_rejected"
  /** GitHub refused the merge for one of the target's rules (see branch-rules.ts). */
  | "branch_rule_refused";

/** Why a PR went back to waiting and will be tested again (testing → pending: docs/queue.md#pr-states). */
export type RequeueReason =
  | "restart_requested"
  | "target_moved"
  | "urgent_pr_ahead"
  | "pr_ahead_failed"
  | "pr_ahead_cancelled"
  | "pr_ahead_requeued"
  | "passing_run_withdrawn"
  | "cleared_by_retest"
  /** Its run failed only on tests test health knows as flaky or quarantined (see flake-evidence.ts). */
  | "flaky_failure";

/** Every other step a PR takes through the queue. */
export type ProgressReason =
  | "submitted"
  | "ready"
  | "awaiting_readiness"
  | "test_started"
  | "tests_passed"
  | "vouched_by_run_behind"
  | "merged";

/** `stateReason` of the PR record: a stable code for the latest transition. */
export type StateReason = CancelReason | FailureReason | RequeueReason | ProgressReason;

export interface Transition {
  readonly state: PullRequestState;
  readonly at: number;
  readonly reason: StateReason;
  readonly detail: string;
}

/** Impacted targets uploaded for one head SHA (docs/queue.md#impacted-targets); "ALL" intersects everything. */
export interface ImpactedTargets {
  readonly headSha: string;
  readonly targets: readonly string[] | "ALL";
}

/** GitHub answered "still computing" `reads` times in a row; it is asked again at `at`. */
export interface MergeabilityRecheck {
  readonly at: number;
  readonly reads: number;
}

/**
 * docs/queue.md#direct-merge (directMergeMode always): what the queue learned of merging a PR at `headSha` directly onto the
 * target at `targetSha`, asked once per pair. `checking` while the shell reads the facts, `merging` while the
 * merge is in flight, `not_eligible` (with `why`) once it is to be tested as usual.
 */
export interface DirectMergeCheck {
  /**
   * How many checks this submission asked for: the target may come back to a head it had (a late push webhook
   * read as a move, then the true head again), and each check is a command of its own.
   */
  readonly attempt: number;
  readonly headSha: string;
  readonly targetSha: string;
  readonly outcome: "checking" | "merging" | "not_eligible";
  /** Why it is not merged directly; empty unless `not_eligible`. */
  readonly why: string;
}

/** What the PR's own CI said on its head commit, as the shell saw it (a webhook about a queued PR's head). */
export type HeadCheckOutcome = "success" | "failure";

export interface HeadChecks {
  readonly headSha: string;
  readonly outcome: HeadCheckOutcome;
}

/**
 * What the proof planner learned of a PR from runs (see proof-planner.ts, failure-odds.ts). Absent: nothing yet.
 */
export interface PrEvidence {
  /** Failed runs that only this PR can explain: every other unproven PR tested in them passed since. */
  readonly pinnedFailures: number;
  /**
   * Failed runs that hold it and some other unproven PRs, each as those PRs (itself among them) less the ones
   * proven since, while nothing explains the failure otherwise (none of them failed for good, no part of them
   * without it failed since). One narrowed down to itself alone becomes a pinned failure.
   */
  readonly failedSets: readonly (readonly number[])[];
  /**
   * Failed sets that another failure made unlikely to be its fault (a part of the set without it failed since),
   * kept as evidence: they narrow like the others as PRs are proven, and one narrowed down to itself alone is a
   * pinned failure all the same. Only a PR of the set failing for good explains them away. Absent: none.
   */
  readonly setAside?: readonly (readonly number[])[];
  /** Runs that held it unproven and failed, and that passed with it: its retest history. */
  readonly failedRuns: number;
  readonly passedRuns: number;
  /** Its own CI on its head commit, when the shell reported it. */
  readonly headChecks: HeadChecks | null;
}

/** The latest submission of one PR number. */
export interface PullRequestEntry {
  readonly submissionId: string;
  /** Breaks ties between submissions made in the same millisecond. */
  readonly submissionSeq: number;
  readonly number: number;
  readonly title: string;
  readonly headSha: string;
  readonly baseBranch: string;
  readonly author: string;
  readonly priorityValue: number;
  readonly usedDefaultPriority: boolean;
  readonly noBatch: boolean;
  readonly submittedAt: number;
  readonly state: PullRequestState;
  readonly stateReason: StateReason;
  readonly stateDetail: string;
  readonly stateChangedAt: number;
  readonly mergeability: ProviderMergeability;
  /** While GitHub is still computing its mergeability: when to read it again (null: the poll will do). */
  readonly mergeabilityRecheck: MergeabilityRecheck | null;
  readonly impactedTargets: ImpactedTargets | null;
  /** The latest run that tested this PR. */
  readonly testRunId: string | null;
  /** While tests_passed: the succeeded run whose tested commit contains this PR (its own, or one behind it). */
  readonly passingRunId: string | null;
  /** Its place in the sequence of PRs the queue merged, once merged. */
  readonly mergeIndex: number | null;
  /**
   * A suspect: its tests failed and it left the stack of runs to be bisected or confirmed on the side, in the
   * bisection pool, while the PRs behind it are tested without it (see bisection.ts). Absent: false.
   */
  readonly sidelined?: boolean;
  /** Proof planner: what runs (and its own CI) told of it. Absent: nothing yet. */
  readonly evidence?: PrEvidence;
  /** A cancellation that arrived while its merge was in flight; applied if the merge fails. */
  readonly cancelRequest: CancelReason | null;
  /** Absent: never considered for a direct merge. */
  readonly directMerge?: DirectMergeCheck;
  readonly history: readonly Transition[];
}

export type TestRunStatus = "in_progress" | "succeeded" | "failed" | "cancelled";

export type RequiredStatusesSource = "merge_instance" | "service_config" | "repo_provider_branch_protection";

/** Why a run ended. */
export type RunEndReason = FailureReason | RequeueReason | CancelReason | "succeeded" | "superseded";

export interface TestedPullRequest {
  readonly number: number;
  readonly headSha: string;
  readonly title: string;
}

/**
 * Why a run was started: to test the next PRs in line (absent), to narrow down a failed batch
 * (`bisection`, docs/queue.md#bisection), or to test a failed PR once more before failing it (`confirmation`). The last
 * two run in the bisection pool.
 */
export type RunPurpose = "bisection" | "confirmation";

/**
 * One test of a predicted future of the target branch (docs/queue.md#testing): the target at `basisSha`, the
 * `mergeCountAtStart` PRs the queue had merged on it, then `dependsOn`, then `prs`, merged in that order.
 */
export interface TestRun {
  readonly id: string;
  readonly prs: readonly TestedPullRequest[];
  /** PRs ahead in its predicted base that were not merged yet when it started, in queue order. */
  readonly dependsOn: readonly number[];
  readonly basisSha: string;
  readonly mergeCountAtStart: number;
  /** The run whose tested commit this one is built on; null: built on the target head. */
  readonly baseRunId: string | null;
  /** The commit the test branch starts from: the base run's tested commit, else the target head. */
  readonly baseSha: string;
  readonly testBranch: string;
  readonly testBranchSha: string | null;
  readonly status: TestRunStatus;
  readonly startedAt: number;
  readonly endedAt: number | null;
  readonly endReason: RunEndReason | null;
  readonly endDetail: string;
  readonly requiredStatuses: readonly string[] | null;
  readonly requiredStatusesSource: RequiredStatusesSource | null;
  /** Latest report per check, keyed by `reportKey`. */
  readonly reports: Readonly<Record<string, StatusReport>>;
  /** Whether a draft PR is opened for the test branch (createPrsForTestingBranches when it started). */
  readonly testPullRequest: boolean;
  readonly branchDeleted: boolean;
  readonly purpose?: RunPurpose;
  /** For a bisection or confirmation run: the failed run it follows up. */
  readonly failedRunId?: string;
  /** What JUnit uploads on its commit said of the tests that failed (see flake-evidence.ts). Absent: none came. */
  readonly failingTests?: readonly FailingTest[];
  /**
   * When a required status failed while the queue waited for an upload that may explain it (see
   * flake-evidence.ts), with what failed; the run stays in flight meanwhile. Absent: not waiting.
   */
  readonly awaitingEvidence?: { readonly since: number; readonly detail: string };
}

/** How test health classifies a test, a quarantined one whatever its classification. */
export type TestHealth = "healthy" | "flaky" | "broken" | "quarantined";

/** A test that failed in a JUnit upload on a run's commit. */
export interface FailingTest {
  readonly name: string;
  readonly health: TestHealth;
}

/**
 * What the queue knows of its target branch. The queue's own merges are counted on top of `basisSha`,
 * the last head it did not produce itself, so the Not Rocket Science check (docs/queue.md#merging) can compare a
 * run's predicted base with what the branch holds.
 */
export interface TargetBranchState {
  /**
   * Set while the branch has not existed since the queue was created for it (a release branch made later):
   * nothing is tested until a push shows its head, and `headSha` and `basisSha` are empty meanwhile.
   */
  readonly awaitingBranch?: true;
  readonly headSha: string;
  readonly basisSha: string;
  /** PRs merged by the queue so far (never reset, so merge indexes stay unique). */
  readonly mergeCount: number;
  /** Heads already accounted for, so late or repeated push webhooks are recognised. */
  readonly recentHeads: readonly string[];
  /** Unknown heads reported while a merge was in flight: ours or not is decided by the merge result. */
  readonly headsSeenWhileMerging: readonly string[];
  /**
   * `mergeCount` after the latest merge through GitHub's merge API (squash, rebase, or merge_commit in
   * parallel mode once another lane merged), which puts new commits on the branch rather than the tested
   * ones: a run started before it cannot be fast-forwarded to (merge_commit). Absent: none.
   */
  readonly rewrittenUpTo?: number;
}

/** PRs merging together (docs/queue.md#merging, #failures): nothing else merges, and none of them is pulled back, meanwhile. */
export interface MergeInFlight {
  /** The merge command in flight (`mergeId` of its result). */
  readonly id: string;
  /** The passed run whose tested commit they make up; null for a direct merge (docs/queue.md#direct-merge). */
  readonly runId: string | null;
  /** The PRs of the group not merged yet, in order. */
  readonly prNumbers: readonly number[];
  /** Those the command in flight merges: the whole group when fast-forwarding, else its first PR. */
  readonly inFlight: readonly number[];
  /** Through GitHub's merge API: the merge makes new commits (see `TargetBranchState.rewrittenUpTo`). */
  readonly rewrites?: boolean;
  /** Said of the PRs once merged, after where and at which commit: why they merged without a run of their own. */
  readonly note?: string;
}

export interface QueueState {
  /** Unique per queue incarnation: run ids, and so test branch names, derive from it. */
  readonly queueId: string;
  readonly targetBranch: string;
  readonly testBranchPrefix: string;
  readonly settings: QueueSettings;
  readonly status: QueueStatus;
  /** A mode change waiting for the runs in flight to end (`switching_modes`, docs/queue.md#switching-modes). */
  readonly pendingMode: QueueMode | null;
  readonly target: TargetBranchState;
  /** The latest submission per PR number, terminal ones included. */
  readonly prs: Readonly<Record<number, PullRequestEntry>>;
  /**
   * The non-terminal PRs in queue order: first the started ones (testing, tests_passed, pending_failure)
   * in the order their runs stack, then the waiting ones (not_ready, pending) by priority and submission,
   * then the sidelined ones, in the order they left the stack.
   */
  readonly line: readonly number[];
  readonly runs: Readonly<Record<string, TestRun>>;
  readonly merging: MergeInFlight | null;
  readonly nextRunSeq: number;
  readonly nextSubmissionSeq: number;
  /** The target's rules on GitHub, once read (see branch-rules.ts). */
  readonly branchRules?: BranchRulesState;
  /** When a JUnit upload last came for one of its test branches (see flake-evidence.ts). Absent: never. */
  readonly lastEvidenceAt?: number;
  /** The PRs the queue decided, each older decision weighing less (see decisions.ts). Absent: none yet. */
  readonly decisions?: DecisionCounts;
}

/** Counts of decided PRs and of those that failed their tests, decayed with every decision. */
export interface DecisionCounts {
  readonly decided: number;
  readonly failed: number;
}

export interface NewQueue {
  readonly queueId: string;
  readonly targetBranch: string;
  /** Null when the branch does not exist yet. */
  readonly targetHeadSha: string | null;
  readonly testBranchPrefix: string;
  readonly settings: QueueSettings;
  readonly status?: QueueStatus;
}

const noMerges = { mergeCount: 0, headsSeenWhileMerging: [] } as const;

export function initialQueueState(queue: NewQueue): QueueState {
  return {
    queueId: queue.queueId,
    targetBranch: queue.targetBranch,
    testBranchPrefix: queue.testBranchPrefix,
    settings: queue.settings,
    status: queue.status ?? "running",
    pendingMode: null,
    target:
      queue.targetHeadSha === null
        ? { awaitingBranch: true, headSha: "", basisSha: "", ...noMerges, recentHeads: [] }
        : {
            headSha: queue.targetHeadSha,
            basisSha: queue.targetHeadSha,
            ...noMerges,
            recentHeads: [queue.targetHeadSha],
          },
    prs: {},
    line: [],
    runs: {},
    merging: null,
    nextRunSeq: 1,
    nextSubmissionSeq: 1,
  };
}

const STARTED: ReadonlySet<PullRequestState> = new Set(["testing", "tests_passed", "pending_failure"]);
const TERMINAL: ReadonlySet<PullRequestState> = new Set(["merged", "failed", "cancelled"]);

/** Started PRs hold a place in the stack of runs; nothing may be inserted ahead of them (docs/queue.md#order-and-priority). */
export function isStarted(state: PullRequestState): boolean {
  return STARTED.has(state);
}

export function isTerminal(state: PullRequestState): boolean {
  return TERMINAL.has(state);
}

export function isWaiting(state: PullRequestState): boolean {
  return state === "not_ready" || state === "pending";
}

/**
 * When a started PR last started testing after waiting: its attempt. Runs of it during one attempt merge it
 * as dated then (see TestBranchMerge), and runs built on it since then were built on this attempt.
 */
export function attemptStartedAt(pr: PullRequestEntry): number {
  let started = pr.stateChangedAt;
  for (let index = pr.history.length - 1; index >= 0; index--) {
    const step = pr.history[index];
    if (step === undefined || !isStarted(step.state)) break;
    started = step.at;
  }
  return started;
}

/**
 * The date a started PR's merge commits carry in its current attempt (see TestBranchMerge): when the attempt
 * started, but at least a second after the date of its attempt before (a commit keeps its date to the second).
 * Each attempt then tests commits of its own, on which CI runs anew, even one that starts within the second its
 * last attempt failed in: with the same date it would rebuild the failed commit, and a late webhook about that
 * commit's results would be taken for its own.
 */
export function attemptCommitDate(pr: PullRequestEntry): number {
  let date = -Infinity;
  let started = false;
  for (const step of pr.history) {
    if (isStarted(step.state) && !started) date = Math.max(step.at, Math.floor(date / 1000) * 1000 + 1000);
    started = isStarted(step.state);
  }
  return Number.isFinite(date) ? date : attemptStartedAt(pr);
}
