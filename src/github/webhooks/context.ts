import type { Logger } from "probot";
import type { MergeQueueEngine } from "../../runner/engine.ts";
import type { Store } from "../../store/database.ts";
import type { GitHubGateway } from "../gateway.ts";

/** What the webhook handlers translate into: the engine, and GitHub for facts a payload lacks. */
export interface WebhookDependencies {
  store: Store;
  engine: MergeQueueEngine;
  github: GitHubGateway;
  githubHost: string;
  log: Logger;
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
