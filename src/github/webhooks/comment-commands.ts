// `/merge` commands in PR comments (docs/queue.md#commands): only for users with write access, acknowledged with a
// reaction; other users, and commands that cannot be carried out, get a polite reply.
import { randomUUID } from "node:crypto";
import type { Context, Probot } from "probot";
import { acceptsNewSubmissions, isTerminal, type QueueEvent } from "../../queue/index.ts";
import { findImpactedTargets } from "../../store/impacted-targets.ts";
import { findQueueLocation } from "../../store/queue-locations.ts";
import { awaitedBranchEvents } from "../../runner/awaited-branch.ts";
import { parseMergeCommand } from "../merge-command.ts";
import { deliveryOf, repoOf, onEachDelivery, type WebhookDependencies } from "./context.ts";

const commanders: ReadonlySet<string> = new Set(["admin", "maintain", "write"]);

type CommentContext = Context<"issue_comment.created">;

async function reply(context: CommentContext, body: string): Promise<void> {
  await context.octokit.rest.issues.createComment(context.issue({ body }));
}

async function react(context: CommentContext, content: "+1" | "confused"): Promise<void> {
  await context.octokit.rest.reactions.createForIssueComment(
    context.repo({ comment_id: context.payload.comment.id, content }),
  );
}

/** Write, maintain or admin on the repository; `role_name` tells maintain from write. */
async function mayCommand(context: CommentContext, username: string): Promise<boolean> {
  const { data } = await context.octokit.rest.repos.getCollaboratorPermissionLevel(
    context.repo({ username }),
  );
  return commanders.has(data.role_name) || commanders.has(data.permission);
}

export function registerCommentCommands(app: Probot, deps: WebhookDependencies): void {
  const { store, engine, github, githubHost } = deps;
  const on = onEachDelivery(app, deps);

  on("issue_comment.created", async (context) => {
    const { comment, issue, repository, installation } = context.payload;
    if (issue.pull_request === undefined || comment.user?.type === "Bot") return;
    const command = parseMergeCommand(comment.body);
    if (command === null) return;

    const repo = { ...repoOf(githubHost, repository), installationId: installation?.id ?? null };
    const pr = await github.pullRequest(repo, issue.number);
    if (pr === null) return;
    const location = await findQueueLocation(store.db, repo, pr.baseBranch);
    const state = location === undefined ? undefined : await engine.read(location.queueId);
    if (location === undefined || state === undefined) {
      await reply(
        context,
        `There is no merge queue for \`${pr.baseBranch}\` in this repository, so \`/merge\` cannot queue this pull request.`,
      );
      return;
    }
    if (!state.settings.commandsEnabled) return;

    const author = comment.user?.login ?? "";
    if (!(await mayCommand(context, author))) {
      await reply(
        context,
        `Sorry @${author}, only people with write access to this repository can use \`/merge\`.`,
      );
      return;
    }
    if (command.kind === "invalid") {
      await react(context, "confused");
      await reply(context, `@${author} I did not understand that command: ${command.problem}.`);
      return;
    }

    const entry = state.prs[pr.number];
    const queued = entry !== undefined && !isTerminal(entry.state);
    const events: QueueEvent[] = [];
    if (command.kind === "submit") {
      if (!pr.open) {
        await reply(
          context,
          `@${author} this pull request is closed; only open pull requests can be queued.`,
        );
        return;
      }
      if (!queued && !acceptsNewSubmissions(state)) {
        await reply(
          context,
          `@${author} the \`${location.targetBranch}\` queue is draining and takes no new pull requests right now.`,
        );
        return;
      }
      events.push(
        ...(await awaitedBranchEvents(state, () => github.branchHead(repo, location.targetBranch))),
      );
      events.push({
        type: "pr_submitted",
        submissionId: randomUUID(),
        pr,
        priority: command.priority,
        noBatch: command.noBatch,
      });
      const targets = await findImpactedTargets(store.db, location.queueId, pr.number, pr.headSha);
      if (targets !== undefined)
        events.push({ type: "impacted_targets_set", prNumber: pr.number, headSha: pr.headSha, targets });
    } else if (!queued) {
      await reply(
        context,
        `@${author} this pull request is not in the \`${location.targetBranch}\` queue, so there is nothing to ${command.kind}.`,
      );
      return;
    } else {
      events.push(
        command.kind === "cancel"
          ? {
              type: "cancel_requested",
              prNumber: pr.number,
              reason: "cancelled_by_user",
              by: `@${author}, with a /merge cancel comment`,
            }
          : { type: "restart_requested", prNumber: pr.number },
      );
    }
    await react(context, "+1");
    await engine.dispatch(location.queueId, events, deliveryOf(context));
  });
}
