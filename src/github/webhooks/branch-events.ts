// `push` to a target branch and `pull_request` changes that take a PR out of its queue (docs/queue.md#pr-states, #merging).
import type { Probot } from "probot";
import { type CancelReason, isTerminal } from "../../queue/index.ts";
import {
  deliveryOf,
  type RepositoryPayload,
  repoOf,
  onEachDelivery,
  type WebhookDependencies,
} from "./context.ts";

const deletedSha = /^0{40}$/;

export function registerBranchEvents(app: Probot, deps: WebhookDependencies): void {
  const { queueDirectory, queues, githubHost } = deps;
  const on = onEachDelivery(app, deps);

  on("push", async (context) => {
    const { ref, after, repository } = context.payload;
    if (!ref.startsWith("refs/heads/") || deletedSha.test(after)) return;
    const location = await queueDirectory.findQueueLocation(
      repoOf(githubHost, repository),
      ref.slice("refs/heads/".length),
    );
    if (location === undefined) return;
    await queues.dispatch(
      location.queueId,
      [{ type: "target_branch_moved", sha: after }],
      deliveryOf(context),
    );
  });

  /**
   * Cancels the PR in the queue of `baseBranch`, if it is queued there, unless it was submitted at `newHead`: then
   * the submission came after the change the webhook reports, which arrived late.
   */
  const cancel = async (
    context: { id: string; name: string },
    repository: RepositoryPayload,
    baseBranch: string,
    prNumber: number,
    reason: CancelReason,
    newHead?: string,
  ) => {
    const location = await queueDirectory.findQueueLocation(repoOf(githubHost, repository), baseBranch);
    if (location === undefined) return;
    const entry = (await queues.read(location.queueId))?.prs[prNumber];
    if (entry === undefined || isTerminal(entry.state) || entry.headSha === newHead) return;
    await queues.dispatch(
      location.queueId,
      [{ type: "cancel_requested", prNumber, reason }],
      deliveryOf(context),
    );
  };

  on("pull_request.closed", async (context) => {
    const pr = context.payload.pull_request;
    // A PR the queue merged is terminal already; one merged by hand left the queue outside it.
    await cancel(
      context,
      context.payload.repository,
      pr.base.ref,
      pr.number,
      pr.merged ? "merged_outside_queue" : "pr_closed",
    );
  });

  on("pull_request.synchronize", async (context) => {
    const pr = context.payload.pull_request;
    await cancel(context, context.payload.repository, pr.base.ref, pr.number, "pr_updated", pr.head.sha);
  });

  on("pull_request.converted_to_draft", async (context) => {
    const pr = context.payload.pull_request;
    await cancel(context, context.payload.repository, pr.base.ref, pr.number, "pr_draft");
  });

  on("pull_request.edited", async (context) => {
    const previousBase = context.payload.changes.base?.ref.from;
    if (previousBase === undefined) return;
    await cancel(
      context,
      context.payload.repository,
      previousBase,
      context.payload.pull_request.number,
      "base_changed",
    );
  });
}
