import type { Probot } from "probot";
import { registerBranchEvents } from "./branch-events.ts";
import { registerCiEvents } from "./ci-events.ts";
import { registerCommentCommands } from "./comment-commands.ts";
import type { WebhookDependencies } from "./context.ts";
import { refuseUnreadablePayloads } from "./payload-shapes.ts";

/** Webhooks → queue events (contract 5.10). */
export function registerQueueWebhooks(app: Probot, deps: WebhookDependencies): void {
  refuseUnreadablePayloads(app.webhooks);
  registerCommentCommands(app, deps);
  registerBranchEvents(app, deps);
  registerCiEvents(app, deps);
}
