// CI results on test branches: `status`, `check_run` and `check_suite` webhooks (docs/queue.md#testing).
import type { Probot } from "probot";
import { outcomeOf, type QueueEvent, type StatusReport } from "../../queue/index.ts";
import { checkRunReport, commitStatusReport } from "../check-payloads.ts";
import {
  deliveryOf,
  type Delivery,
  type DirectHandlers,
  onEachDelivery,
  type WebhookDependencies,
} from "./context.ts";
import type { CheckRunPayload, StatusPayload } from "./payload-shapes.ts";

/**
 * Registers the `check_suite` handler, and answers the `status` and `check_run` handlers for the endpoint to call
 * directly: the bulk of a CI burst. Those two are not claimed per delivery as other handlers are (onEachDelivery):
 * all they change is queues, each step of which records the delivery in its own transaction, so a copy, on this
 * replica or another, at once or later, changes nothing; and the claim would cost two writes per delivery.
 */
export function registerCiEvents(app: Probot, deps: WebhookDependencies): DirectHandlers {
  const { queueDirectory, queues, github } = deps;
  const on = onEachDelivery(app, deps);
  // Deliveries about different commits, arriving while one read is on its way, share the next (QueueDirectory).
  const commitConcerns = (sha: string) => queueDirectory.commitConcerns(sha);

  /**
   * Results about a commit concern the queues with a run testing it. On a queued PR's own head they count for
   * its odds (a finished result, as `pr_head_checks_observed`), and may make it mergeable, which GitHub
   * announces with no webhook: the PR is read again.
   */
  const report = async (
    delivery: { id: string; name: string },
    sha: string,
    found: StatusReport,
    events: QueueEvent[],
  ) => {
    const { testing, notReady, queued } = await commitConcerns(sha);
    for (const queueId of testing) await queues.dispatch(queueId, events, deliveryOf(delivery));
    const outcome = outcomeOf(found);
    if (outcome !== "pending") {
      for (const { queueId, prNumber } of queued) {
        await queues.dispatch(queueId, [
          { type: "pr_head_checks_observed", prNumber, headSha: sha, outcome },
        ]);
      }
    }
    for (const { queueId, prNumber } of notReady) {
      const location = await queueDirectory.queueLocation(queueId);
      const pr = location === undefined ? null : await github.pullRequest(location, prNumber);
      if (pr === null) continue;
      await queues.dispatch(queueId, [
        { type: "mergeability_observed", prNumber, headSha: pr.headSha, mergeability: pr.mergeability },
      ]);
    }
  };

  // A completed suite is a good moment to read every check of the commit: a lost check_run webhook is
  // caught here instead of at the next poll.
  on("check_suite.completed", async (context) => {
    const sha = context.payload.check_suite.head_sha;
    for (const queueId of (await commitConcerns(sha)).testing) {
      const location = await queueDirectory.queueLocation(queueId);
      if (location === undefined) continue;
      const reports = await github.ciReports(location, sha);
      await queues.dispatch(
        queueId,
        reports.map((found) => ({ type: "status_reported", sha, report: found })),
        deliveryOf(context),
      );
    }
  });

  return new Map([
    [
      "status",
      async (delivery: Delivery) => {
        const status = delivery.payload as StatusPayload;
        const found = commitStatusReport(status);
        await report(delivery, status.sha, found, [
          { type: "status_reported", sha: status.sha, report: found },
        ]);
      },
    ],
    [
      "check_run",
      async (delivery: Delivery) => {
        const run = (delivery.payload as CheckRunPayload).check_run;
        const found = checkRunReport({ ...run, conclusion: run.conclusion ?? null });
        await report(delivery, run.head_sha, found, [
          { type: "status_reported", sha: run.head_sha, report: found },
        ]);
      },
    ],
  ]);
}
