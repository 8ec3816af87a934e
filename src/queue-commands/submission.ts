// Submitting a PR to a queue, or submitting it again to change its priority: what `/merge`, the queue page's
// "urgent" button and the /v1 submitPullRequest endpoint all ask. Besides the submission itself, the queue is told
// what it could not have learnt on its own: where its branch is (when it still waits for it), the targets uploaded
// for the PR's head, and the CI result already on that head (a PR whose own checks failed is likelier to fail).
import { randomUUID } from "node:crypto";
import {
  acceptsNewSubmissions,
  outcomeOf,
  type QueueEvent,
  type QueueState,
  type StatusReport,
} from "../queue/index.ts";
import type { OpenPullRequest, RepoAddress } from "../ports/github-reads.ts";
import type { ImpactedTargetStorage } from "../ports/impacted-target-storage.ts";
import { awaitedBranchEvents } from "./awaited-branch.ts";
import { type CommandAnswer, refusing, stepping } from "./answers.ts";
import { isQueued } from "./pull-request-commands.ts";

/** What a submission reads besides the queue: GitHub's branch head and CI results, and the uploaded targets. */
export interface SubmissionReads {
  branchHead(repo: RepoAddress, branch: string): Promise<string | null>;
  ciReports(repo: RepoAddress, sha: string): Promise<readonly StatusReport[]>;
  impactedTargets: Pick<ImpactedTargetStorage, "findImpactedTargets">;
}

export interface Submission {
  /** The queue, where it lives, and its state as last saved. */
  readonly queue: { readonly id: string; readonly repo: RepoAddress; readonly state: QueueState };
  /** The PR as GitHub (or, for a PR already queued, the queue) knows it. */
  readonly pr: OpenPullRequest;
  /** Null: the queue's default, or the priority the PR has. */
  readonly priority: number | null;
  readonly noBatch: boolean;
}

export type SubmissionRefusal =
  { readonly code: "pull_request_closed"; readonly merged: boolean } | { readonly code: "queue_draining" };

export async function submitPullRequest(
  reads: SubmissionReads,
  submission: Submission,
): Promise<CommandAnswer<SubmissionRefusal>> {
  const { queue, pr } = submission;
  if (!pr.open) return refusing({ code: "pull_request_closed", merged: pr.merged });
  const queued = isQueued(queue.state, pr.number);
  if (!queued && !acceptsNewSubmissions(queue.state)) return refusing({ code: "queue_draining" });
  const branch = queue.state.targetBranch;
  const targets = await reads.impactedTargets.findImpactedTargets(queue.id, pr.number, pr.headSha);
  return stepping(
    ...(await awaitedBranchEvents(queue.state, () => reads.branchHead(queue.repo, branch))),
    {
      type: "pr_submitted",
      submissionId: randomUUID(),
      pr: pullRequestFacts(pr),
      priority: submission.priority,
      noBatch: submission.noBatch,
    },
    ...(targets === undefined
      ? []
      : [{ type: "impacted_targets_set", prNumber: pr.number, headSha: pr.headSha, targets } as const]),
    // A PR queued already at this head heard its CI's results through the webhooks.
    ...(queued && queue.state.prs[pr.number]?.headSha === pr.headSha
      ? []
      : await headChecks(reads, submission)),
  );
}

/** The facts the queue keeps of a PR, whatever else the door read of it. */
function pullRequestFacts(pr: OpenPullRequest) {
  const { number, title, headSha, baseBranch, author, mergeability } = pr;
  return { number, title, headSha, baseBranch, author, mergeability };
}

/**
 * The CI result already on the PR's head, which the webhooks told before the PR was queued, so to no queue: the
 * event they would have given it. A failure among the results outweighs any success (head-checks.ts keeps a
 * failure), so one event says it all. A read that fails leaves the odds without it, never the PR out of the queue.
 */
async function headChecks(reads: SubmissionReads, { queue, pr }: Submission): Promise<QueueEvent[]> {
  let reports: readonly StatusReport[];
  try {
    reports = await reads.ciReports(queue.repo, pr.headSha);
  } catch {
    return [];
  }
  const outcomes = new Set(reports.map(outcomeOf));
  const outcome = outcomes.has("failure") ? "failure" : outcomes.has("success") ? "success" : null;
  if (outcome === null) return [];
  return [{ type: "pr_head_checks_observed", prNumber: pr.number, headSha: pr.headSha, outcome }];
}
