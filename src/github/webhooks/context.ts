import { setTimeout as sleep } from "node:timers/promises";
import type { Logger, Probot } from "probot";
import { Problem } from "../../http/problem.ts";
import type { Clock } from "../../ports/clock.ts";
import type { DeliveryClaims } from "../../ports/delivery-claims.ts";
import type { QueueEngine } from "../../ports/queue-engine.ts";
import type { QueueDirectory } from "../../ports/queue-location.ts";
import type { RepositoryRecords } from "../../ports/repository-records.ts";
import type { SubmissionReads } from "../../queue-commands/submission.ts";
import type { GitHubGateway } from "../gateway.ts";

/** What the webhook handlers translate into: the queues, and GitHub for facts a payload lacks. */
export interface WebhookDependencies {
  queues: QueueEngine;
  /** Which queues a delivery is about. */
  queueDirectory: QueueDirectory;
  repositories: Pick<RepositoryRecords, "findRepository">;
  /** The deliveries handled, so that each is handled once. */
  deliveries: DeliveryClaims;
  /** What a `/merge` submission reads besides the queue. */
  submissionReads: SubmissionReads;
  github: GitHubGateway;
  githubHost: string;
  log: Logger;
  clock: Clock;
  /** The webhook secret before a rotation, accepted besides the current one (WEBHOOK_SECRET_PREVIOUS). */
  previousWebhookSecret?: string | undefined;
}

export interface RepositoryPayload {
  name: string;
  full_name: string;
}

/** `full_name` rather than `owner`: some payloads give the owner as null (a deleted account). */
export function repoOf(host: string, repository: RepositoryPayload) {
  const [owner = ""] = repository.full_name.split("/");
  return { host, owner, name: repository.name };
}

/** The delivery a webhook came in, so that a redelivery changes nothing (docs/queue.md#reliability). */
export function deliveryOf(context: { id: string; name: string }) {
  return { delivery: { id: context.id, event: context.name } };
}

/** A delivery as the endpoint received it: its payload has the shape `payloadProblem` checks for its event. */
export interface Delivery {
  id: string;
  name: string;
  payload: unknown;
}

/**
 * A handler that needs neither a Probot context nor its Octokit, by event name: the endpoint calls it directly,
 * and a burst of CI webhooks does not build an authenticated Octokit per delivery.
 */
export type DirectHandlers = ReadonlyMap<string, (delivery: Delivery) => Promise<void>>;

/** A claim this old belonged to a replica that died while handling the delivery (GitHub waits 10 s at most). */
const deliveryClaimStaleMs = 60_000;
/** How long a copy of a delivery waits for another replica handling it, before saying it was not handled. */
const inProgressWaitMs = 3_000;

/**
 * `app.on`, with each handler run at most once per delivery id (docs/queue.md#reliability), on a payload whose shape the
 * endpoint checked (`payloadProblem`). The claim comes before anything the handler does, since some of it (a
 * reply, a reaction) happens on GitHub before any queue step. A delivery whose handler failed is released, so that
 * redelivering it tries again; the queue steps it did commit are recorded per queue (`deliveryOf`) and are not
 * applied twice. A copy that arrives while another replica handles the delivery is answered 2xx only once that
 * handling finished: if the replica dies meanwhile, the copy answers 503, so nothing acknowledged is ever lost.
 */
export function onEachDelivery(
  app: Probot,
  { deliveries, clock }: Pick<WebhookDependencies, "deliveries" | "clock">,
): Probot["on"] {
  /** Whether this copy of the delivery is the one to handle it; false when it was already handled. */
  const claimed = async (key: string, event: string): Promise<boolean> => {
    const deadline = Date.now() + inProgressWaitMs;
    for (;;) {
      const claim = await deliveries.claimDelivery(key, event, clock(), deliveryClaimStaleMs);
      if (claim !== "in_progress") return claim === "claimed";
      if (Date.now() >= deadline) {
        throw new Problem(
          503,
          "delivery_in_progress",
          `delivery ${key} is being handled by another replica; not handled here`,
        );
      }
      await sleep(100);
    }
  };
  const on = (event: Parameters<Probot["on"]>[0], handler: (context: Delivery) => Promise<void>) =>
    app.on(event, async (context: Delivery) => {
      // Per handler, should another handler ever take the same event.
      const key = `${context.id}/${String(event)}`;
      if (!(await claimed(key, context.name))) return;
      try {
        await handler(context);
      } catch (error) {
        await deliveries.forgetDelivery(key);
        throw error;
      }
      await deliveries.completeDelivery(key, clock());
    });
  return on as Probot["on"];
}
