// `/merge` commands in PR comments (docs/queue.md#commands): only for users with write access, acknowledged with a
// reaction; other users, and commands that cannot be carried out, get a polite reply.
import type { Context, Probot } from "probot";
import {
  cancelPullRequest,
  type NotQueued,
  restartPullRequest,
} from "../../queue-commands/pull-request-commands.ts";
import { submitPullRequest, type SubmissionRefusal } from "../../queue-commands/submission.ts";
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

/** A refusal as the reply to the comment says it, after the commenter's name. */
function refusalWords(refusal: SubmissionRefusal | NotQueued, command: string, branch: string): string {
  switch (refusal.code) {
    case "pull_request_closed":
      return "this pull request is closed; only open pull requests can be queued.";
    case "queue_draining":
      return `the \`${branch}\` queue is draining and takes no new pull requests right now.`;
    case "pull_request_not_submitted":
    case "pull_request_finished":
      return `this pull request is not in the \`${branch}\` queue, so there is nothing to ${command}.`;
  }
}

export function registerCommentCommands(app: Probot, deps: WebhookDependencies): void {
  const { queueDirectory, queues, github, githubHost } = deps;
  const on = onEachDelivery(app, deps);

  on("issue_comment.created", async (context) => {
    const { comment, issue, repository, installation } = context.payload;
    if (issue.pull_request === undefined || comment.user?.type === "Bot") return;
    const command = parseMergeCommand(comment.body);
    if (command === null) return;

    const repo = { ...repoOf(githubHost, repository), installationId: installation?.id ?? null };
    const pr = await github.pullRequest(repo, issue.number);
    if (pr === null) return;
    const location = await queueDirectory.findQueueLocation(repo, pr.baseBranch);
    const state = location === undefined ? undefined : await queues.read(location.queueId);
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

    const queue = { id: location.queueId, repo, state };
    const answer =
      command.kind === "submit"
        ? await submitPullRequest(deps.submissionReads, {
            queue,
            pr,
            priority: command.priority,
            noBatch: command.noBatch,
          })
        : command.kind === "cancel"
          ? cancelPullRequest({ state, prNumber: pr.number, by: `@${author}, with a /merge cancel comment` })
          : restartPullRequest({ state, prNumber: pr.number });
    if (answer.refused !== undefined) {
      await reply(context, `@${author} ${refusalWords(answer.refused, command.kind, location.targetBranch)}`);
      return;
    }
    await react(context, "+1");
    await queues.dispatch(location.queueId, answer.events, deliveryOf(context));
  });
}
