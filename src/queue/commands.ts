import { ownRequiredStatuses } from "./settings.ts";
import type { MergeInFlight, PullRequestEntry, QueueState, TestedPullRequest, TestRun } from "./state.ts";

/**
 * A PR merged into a test branch. Its merge commit is dated `commitDate` (epoch ms, when the queue started
 * testing the PR), never the time of the merge: every test branch that merges the same PR on the same commit
 * then makes the very same commit, so a run built from the target through the PRs ahead descends from the
 * commits those PRs were tested on, and the target can fast-forward from one tested commit to the next.
 */
export interface TestBranchMerge extends TestedPullRequest {
  readonly commitDate: number;
}

/** How GitHub's merge API merges a PR: `merge` makes a merge commit, the others new commits of the PR's. */
export type MergeApiMethod = "merge" | "squash" | "rebase";

/**
 * Effects `step` asks the shell to perform. They are saved with the new state (transactional outbox) and
 * may run more than once after a crash, so each is idempotent by construction and carries a deterministic
 * `key`: "already exists", "already merged" and "not found" on delete count as success.
 */
export type QueueCommand =
  /**
   * Create `branch` at `baseSha`, then merge each PR head in order ("Merge #12: title"), each merge commit a
   * reproducible one (see TestBranchMerge). `prs` holds the PRs ahead that `baseSha` lacks, then the run's
   * own, so the whole branch is built by this one command. Reports `test_branch_created` with the final head,
   * or `test_branch_conflict` naming the PR that did not merge.
   */
  | {
      readonly type: "create_test_branch";
      readonly key: string;
      readonly runId: string;
      readonly branch: string;
      readonly baseSha: string;
      readonly prs: readonly TestBranchMerge[];
      /**
       * When the queue sets no required statuses: the target branch whose own (`merge.required_statuses`, else
       * branch protection) are read first and reported (`required_statuses_resolved`); with none there is
       * nothing to test, so no branch is built. Null when the queue sets them.
       */
      readonly resolveRequiredStatusesOf: string | null;
      /**
       * Whether each merge commit is made again as the reproducible one (see TestBranchMerge): only where a tested
       * commit lands as it is (merge_commit fast-forwards the target to it). With squash and rebase no tested
       * commit ever lands, and GitHub's own merge commits do: one write per PR instead of two.
       */
      readonly reproducible: boolean;
    }
  | {
      readonly type: "delete_test_branch";
      readonly key: string;
      readonly runId: string;
      readonly branch: string;
    }
  /** createPrsForTestingBranches (docs/queue.md#testing): a draft PR from the test branch into the target branch. */
  | {
      readonly type: "open_test_pull_request";
      readonly key: string;
      readonly runId: string;
      readonly branch: string;
      readonly targetBranch: string;
      readonly title: string;
      /** Links the PRs under test. */
      readonly body: string;
    }
  | {
      readonly type: "close_test_pull_request";
      readonly key: string;
      readonly runId: string;
      readonly branch: string;
    }
  /**
   * merge_commit (docs/queue.md#merging): move the target branch to the tested commit itself, without force, only
   * from `expectedHeadSha`. Reports `merge_succeeded` or `merge_failed`.
   */
  | {
      readonly type: "fast_forward_target";
      readonly key: string;
      readonly mergeId: string;
      readonly targetBranch: string;
      readonly sha: string;
      readonly expectedHeadSha: string;
      readonly prNumbers: readonly number[];
    }
  /**
   * squash / rebase (docs/queue.md#merging): merge one PR through GitHub's merge API with `sha` = the tested head,
   * after checking the target head is still `expectedTargetSha`. `merge`: merge_commit in parallel mode when
   * the target cannot be fast-forwarded to the tested commit (another lane merged since it was built).
   */
  | {
      readonly type: "merge_pull_request";
      readonly key: string;
      readonly mergeId: string;
      readonly prNumber: number;
      readonly headSha: string;
      readonly method: MergeApiMethod;
      readonly expectedTargetSha: string;
      readonly commitTitle: string;
    }
  /**
   * docs/queue.md#direct-merge: read whether PR `prNumber` at `headSha` contains the target at `targetSha`, and what CI
   * reported on its head for the required statuses (the queue's own, `requiredStatuses`, or when null the
   * target branch's, resolved as for a run). Reports `direct_merge_checked`.
   */
  | {
      readonly type: "check_direct_merge";
      readonly key: string;
      readonly prNumber: number;
      readonly headSha: string;
      readonly targetBranch: string;
      readonly targetSha: string;
      readonly requiredStatuses: readonly string[] | null;
    }
  /** docs/queue.md#what-the-pr-shows: the commit status `Switchyard Merge Queue (<branch>)` on the PR head. */
  | {
      readonly type: "set_commit_status";
      readonly key: string;
      readonly prNumber: number;
      readonly sha: string;
      readonly context: string;
      readonly state: "pending" | "success" | "failure" | "error";
      readonly description: string;
    }
  /** docs/queue.md#what-the-pr-shows: one comment per submission, edited in place; the body starts with a marker naming it. */
  | {
      readonly type: "upsert_pr_comment";
      readonly key: string;
      readonly prNumber: number;
      readonly submissionId: string;
      readonly body: string;
      /**
       * Routine progress, which the PR's commit status shows as it happens: the body is posted when the submission
       * has no comment yet, and never edited into one it has (docs/queue.md#what-the-pr-shows).
       */
      readonly progress: boolean;
      /**
       * The end of a course with no news, which the commit status showed all along: edited into the submission's
       * comment if it has one (posted in parallel mode, for its lane), never posted (docs/queue.md#what-the-pr-shows).
       */
      readonly editOnly: boolean;
    };

/** docs/queue.md#testing: `<prefix><targetBranch>/<testRunId>`. */
export function testBranchName(state: QueueState, runId: string): string {
  return `${state.testBranchPrefix}${state.targetBranch}/${runId}`;
}

export function createTestBranch(
  state: QueueState,
  run: TestRun,
  prs: readonly TestBranchMerge[],
): QueueCommand {
  return {
    type: "create_test_branch",
    key: `create-test-branch:${run.id}`,
    runId: run.id,
    branch: run.testBranch,
    baseSha: run.baseSha,
    prs,
    resolveRequiredStatusesOf: run.requiredStatuses === null ? state.targetBranch : null,
    reproducible: state.settings.mergeMethod === "merge_commit",
  };
}

export function deleteTestBranch(run: TestRun): QueueCommand {
  return {
    type: "delete_test_branch",
    key: `delete-test-branch:${run.id}`,
    runId: run.id,
    branch: run.testBranch,
  };
}

export function openTestPullRequest(state: QueueState, run: TestRun): QueueCommand {
  const prs = run.prs.map((pr) => `#${pr.number}`).join(", ");
  // GitHub links each `#n` of the body to that PR, and shows the draft in the PRs' timelines.
  const onTopOf =
    run.dependsOn.length > 0 ? `, on top of ${run.dependsOn.map((n) => `#${n}`).join(", ")}` : "";
  return {
    type: "open_test_pull_request",
    key: `open-test-pull-request:${run.id}`,
    runId: run.id,
    branch: run.testBranch,
    targetBranch: state.targetBranch,
    title: `Switchyard test run ${run.id}: ${prs}`,
    body:
      `Tests ${prs} for the merge queue of ${state.targetBranch}${onTopOf}.\n\n` +
      "Opened by Switchyard so that CI runs on this test branch; it is closed when the run ends. Do not merge it by hand.",
  };
}

export function closeTestPullRequest(run: TestRun): QueueCommand {
  return {
    type: "close_test_pull_request",
    key: `close-test-pull-request:${run.id}`,
    runId: run.id,
    branch: run.testBranch,
  };
}

/** docs/queue.md#direct-merge: the facts deciding a direct merge, for the PR's head on the target head as they are now. */
export function checkDirectMerge(state: QueueState, pr: PullRequestEntry, attempt: number): QueueCommand {
  return {
    type: "check_direct_merge",
    key: `check-direct-merge:${pr.submissionId}:${attempt}`,
    prNumber: pr.number,
    headSha: pr.headSha,
    targetBranch: state.targetBranch,
    targetSha: state.target.headSha,
    requiredStatuses: ownRequiredStatuses(state.settings),
  };
}

/** A merge attempt is named after the run that vouches for it and the PRs it merges: each is tried once. */
export function mergeIdOf(runId: string, prNumbers: readonly number[]): string {
  return `${runId}:${prNumbers.join("+")}`;
}

export function fastForwardTarget(state: QueueState, merge: MergeInFlight, sha: string): QueueCommand {
  return {
    type: "fast_forward_target",
    key: `merge:${merge.id}`,
    mergeId: merge.id,
    targetBranch: state.targetBranch,
    sha,
    expectedHeadSha: state.target.headSha,
    prNumbers: merge.prNumbers,
  };
}

export function mergePullRequest(
  state: QueueState,
  merge: MergeInFlight,
  pr: { readonly number: number; readonly headSha: string; readonly title: string },
  method: MergeApiMethod,
): QueueCommand {
  return {
    type: "merge_pull_request",
    key: `merge:${merge.id}`,
    mergeId: merge.id,
    prNumber: pr.number,
    headSha: pr.headSha,
    method,
    expectedTargetSha: state.target.headSha,
    // A merge commit is titled as the test branches title theirs (docs/queue.md#merging).
    commitTitle: method === "merge" ? `Merge #${pr.number}: ${pr.title}` : `${pr.title} (#${pr.number})`,
  };
}

/** docs/queue.md#what-the-pr-shows: the context of the queue's commit status. */
export function queueStatusContext(targetBranch: string): string {
  return `Switchyard Merge Queue (${targetBranch})`;
}
