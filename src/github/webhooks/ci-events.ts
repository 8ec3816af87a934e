// CI results on test branches: `status`, `check_run` and `check_suite` webhooks (contract 5.3).
import type { Probot } from "probot";
import type { QueueEvent } from "../../queue/index.ts";
import { notReadyPullRequestsAt, queueLocation, queuesTestingSha } from "../../store/queue-locations.ts";
import { checkRunReport, commitStatusReport } from "../check-payloads.ts";
import { deliveryOf, onEachDelivery, type WebhookDependencies } from "./context.ts";

export function registerCiEvents(app: Probot, deps: WebhookDependencies): void {
  const { store, engine, github } = deps;
  const on = onEachDelivery(app, deps);

  /**
   * Results about a commit concern the queues with a run testing it. On a queued PR's own head they may
   * make it mergeable, which GitHub announces with no webhook: the PR is read again.
   */
  const report = async (context: { id: string; name: string }, sha: string, events: QueueEvent[]) => {
    for (const queueId of await queuesTestingSha(store.db, sha)) {
      await engine.dispatch(queueId, events, deliveryOf(context));
    }
    for (const { queueId, prNumber } of await notReadyPullRequestsAt(store.db, sha)) {
      const location = await queueLocation(store.db, queueId);
      const pr = location === undefined ? null : await github.pullRequest(location, prNumber);
      if (pr === null) continue;
      await engine.dispatch(queueId, [
        { type: "mergeability_observed", prNumber, headSha: pr.headSha, mergeability: pr.mergeability },
      ]);
    }
  };

  on("status", async (context) => {
    const { sha } = context.payload;
    await report(context, sha, [
      { type: "status_reported", sha, report: commitStatusReport(context.payload) },
    ]);
  });

  on("check_run", async (context) => {
    const run = context.payload.check_run;
    await report(context, run.head_sha, [
      { type: "status_reported", sha: run.head_sha, report: checkRunReport(run) },
    ]);
  });

  // A completed suite is a good moment to read every check of the commit: a lost check_run webhook is
  // caught here instead of at the next poll.
  on("check_suite.completed", async (context) => {
    const sha = context.payload.check_suite.head_sha;
    for (const queueId of await queuesTestingSha(store.db, sha)) {
      const location = await queueLocation(store.db, queueId);
      if (location === undefined) continue;
      const reports = await github.ciReports(location, sha);
      await engine.dispatch(
        queueId,
        reports.map((found) => ({ type: "status_reported", sha, report: found })),
        deliveryOf(context),
      );
    }
  });
}
