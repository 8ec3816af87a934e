import type { Probot } from "probot";
import { registerBranchEvents } from "./branch-events.ts";
import { registerCiEvents } from "./ci-events.ts";
import { registerCommentCommands } from "./comment-commands.ts";
import { registerRuleEvents } from "./rule-events.ts";
import type { WebhookDependencies } from "./context.ts";
import { serveWebhooks } from "./endpoint.ts";

/** Webhooks → queue events (docs/queue.md#pr-states, #reliability). */
export function registerQueueWebhooks(app: Probot, deps: WebhookDependencies): void {
  registerCommentCommands(app, deps);
  registerBranchEvents(app, deps);
  registerRuleEvents(app, deps);
  serveWebhooks(app, registerCiEvents(app, deps), deps.previousWebhookSecret);
}
