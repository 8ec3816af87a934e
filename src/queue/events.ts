import type { BranchRule } from "./branch-rule-facts.ts";
import type { QueueSettings } from "./settings.ts";
import type {
  CancelReason,
  FailingTest,
  ImpactedTargets,
  ProviderMergeability,
  QueueStatus,
  RequiredStatusesSource,
} from "./state.ts";
import type { HeadCheckOutcome } from "./state.ts";
import type { StatusReport } from "./status-reports.ts";

/** What GitHub says about a PR when it is submitted. */
export interface PullRequestFacts {
  readonly number: number;
  readonly title: string;
  readonly headSha: string;
  readonly baseBranch: string;
  readonly author: string;
  readonly mergeability: ProviderMergeability;
}

/** Why GitHub refused a merge, as the executor tells it apart. */
export type MergeFailure =
  /** GitHub refused (branch protection, conflicts, …): the PR fails with `merge_rejected`. */
  | { readonly kind: "rejected"; readonly message: string }
  /** The PR head is no longer the tested head (docs/queue.md#merging): the PR is cancelled with `pr_updated`. */
  | { readonly kind: "pr_head_moved" }
  /** The target head was not the expected one: someone pushed outside the queue. */
  | { readonly kind: "target_moved"; readonly headSha: string }
  /**
   * GitHub refused for one of the target's rules, its head unchanged (see branch-rules.ts); `rule`: the rule's
   * type when GitHub's message names one.
   */
  | {
      readonly kind: "rule_refused";
      readonly rule: string | null;
      readonly message: string;
      /**
       * The refused commit is one the queue made before it knew the rule (an unsigned merge commit): its PRs are
       * tested again, on commits the rule accepts, rather than failed.
       */
      readonly retest?: boolean;
    };

/** What GitHub says about merging a PR directly (docs/queue.md#direct-merge), read for one PR head and target head. */
export type DirectMergeFacts =
  | {
      readonly kind: "read";
      /** GitHub's compare of the target head with the PR head: `ahead` or `identical`. */
      readonly containsTarget: boolean;
      /** Resolved as a run resolves them (docs/queue.md#required-statuses); empty when there are none anywhere. */
      readonly requiredStatuses: readonly string[];
      /** What CI reported on the PR head. */
      readonly reports: readonly StatusReport[];
    }
  /** GitHub refused to tell (a permission, a commit it no longer has): asking again would get the same. */
  | { readonly kind: "refused"; readonly message: string };

/**
 * Everything that can happen to a queue. The shell translates webhooks, API calls, command results and
 * timer ticks into these; `step` decides what they mean.
 */
export type QueueEvent =
  /** A submission (docs/queue.md#pr-states). For a PR already queued it changes priority / noBatch only. */
  | {
      readonly type: "pr_submitted";
      /** Used when this starts a new submission (a PR not queued, or terminal). */
      readonly submissionId: string;
      readonly pr: PullRequestFacts;
      /** 0..255; null: the default priority, or unchanged for a PR already queued. */
      readonly priority: number | null;
      readonly noBatch: boolean;
    }
  | {
      readonly type: "cancel_requested";
      readonly prNumber: number;
      readonly reason: CancelReason;
      /** Who asked, in words ("@alice, with a /merge cancel comment"), for a cancellation on request. */
      readonly by?: string;
    }
  | { readonly type: "restart_requested"; readonly prNumber: number }
  | {
      readonly type: "mergeability_observed";
      readonly prNumber: number;
      readonly headSha: string;
      readonly mergeability: ProviderMergeability;
    }
  | ({ readonly type: "impacted_targets_set"; readonly prNumber: number } & ImpactedTargets)
  /** updateQueue (docs/api.md#merge-queue-endpoints, docs/queue.md#queue-states): any subset of the settings, and the state a user may set. */
  | {
      readonly type: "queue_updated";
      readonly settings: Partial<QueueSettings>;
      readonly status?: QueueStatus;
    }
  | { readonly type: "test_branch_created"; readonly runId: string; readonly sha: string }
  | { readonly type: "test_branch_conflict"; readonly runId: string; readonly prNumber: number }
  | {
      readonly type: "required_statuses_resolved";
      readonly runId: string;
      readonly statuses: readonly string[];
      readonly source: RequiredStatusesSource;
    }
  | { readonly type: "status_reported"; readonly sha: string; readonly report: StatusReport }
  /** A push to the target branch (webhook or poll). */
  | { readonly type: "target_branch_moved"; readonly sha: string }
  /** Results of a merge command, matched by its `mergeId`; `sha`: the target head after the merge. */
  | { readonly type: "merge_succeeded"; readonly mergeId: string; readonly sha: string }
  | {
      readonly type: "merge_failed";
      readonly mergeId: string;
      readonly prNumber: number;
      readonly failure: MergeFailure;
    }
  /** The answer to check_direct_merge. */
  | {
      readonly type: "direct_merge_checked";
      readonly prNumber: number;
      readonly headSha: string;
      readonly targetSha: string;
      readonly facts: DirectMergeFacts;
    }
  /** The target branch's rules as GitHub enforces them, read by the shell (see branch-rules.ts). */
  | { readonly type: "branch_rules_read"; readonly rules: readonly BranchRule[] }
  /**
   * CI reported on a queued PR's own head commit (not a test branch): its own checks failed or passed there. The
   * proof planner's odds weigh it (failure-odds.ts).
   */
  | {
      readonly type: "pr_head_checks_observed";
      readonly prNumber: number;
      readonly headSha: string;
      readonly outcome: HeadCheckOutcome;
    }
  /**
   * A JUnit upload on a test branch commit, as test health judged its failing tests (every test whose final
   * outcome in the upload was a failure; none when everything passed).
   */
  | {
      readonly type: "run_failures_explained";
      readonly sha: string;
      readonly failingTests: readonly FailingTest[];
    }
  /** Time passed (the time itself is `step`'s `now`): testing timeouts (docs/queue.md#testing). */
  | { readonly type: "tick" };
