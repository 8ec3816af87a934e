import type { Logger, Probot } from "probot";
import type { MergeQueueEngine } from "../../runner/engine.ts";
import type { Store } from "../../store/database.ts";
import { forgetDelivery, recordDelivery } from "../../store/deliveries.ts";
import { payloadProblem } from "./payload-shapes.ts";
import type { GitHubGateway } from "../gateway.ts";

/** What the webhook handlers translate into: the engine, and GitHub for facts a payload lacks. */
export interface WebhookDependencies {
  store: Store;
  engine: MergeQueueEngine;
  github: GitHubGateway;
  githubHost: string;
  log: Logger;
  clock: () => number;
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

/** The delivery a webhook came in, so that a redelivery changes nothing (contract 5.10). */
export function deliveryOf(context: { id: string; name: string }) {
  return { delivery: { id: context.id, event: context.name } };
}

interface DeliveredContext {
  id: string;
  name: string;
  payload: unknown;
}

/**
 * `app.on`, with each handler run at most once per delivery id (contract 5.10) and refusing (400) a payload it
 * cannot read. The claim comes before anything the handler does, since some of it (a reply, a reaction) happens
 * on GitHub before any queue step. A delivery whose handler failed is released, so that redelivering it tries
 * again; the queue steps it did commit are recorded per queue (`deliveryOf`) and are not applied twice.
 */
export function onEachDelivery(
  app: Probot,
  { store, clock }: Pick<WebhookDependencies, "store" | "clock">,
): Probot["on"] {
  const on = (event: Parameters<Probot["on"]>[0], handler: (context: DeliveredContext) => Promise<void>) =>
    app.on(event, async (context: DeliveredContext) => {
      const problem = payloadProblem(context.name, context.payload);
      // Probot answers the delivery with an error's `status`.
      if (problem !== null) throw Object.assign(new Error(problem), { status: 400 });
      // Per handler, should another handler ever take the same event.
      const key = `${context.id}/${String(event)}`;
      if (!(await recordDelivery(store.db, key, context.name, clock()))) return;
      try {
        await handler(context);
      } catch (error) {
        await forgetDelivery(store.db, key);
        throw error;
      }
    });
  return on as Probot["on"];
}
