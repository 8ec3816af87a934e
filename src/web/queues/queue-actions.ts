// The controls of a queue's page: pause, resume and drain the queue; cancel or restart a PR, or make it urgent.
// Each is a form posted to the page's own address with the session's anti-forgery token, from this site only, by
// a visitor whose organization covers the repository (who may see the page). Each asks the queue command of the
// same name (src/queue-commands/), as the /v1 endpoints and the `/merge` comments do; a success answers 303 back
// to the page (Post/Redirect/Get), a refusal a page that says why nothing was changed.
import type { FastifyReply, FastifyRequest } from "fastify";
import { PRIORITY_VALUES, type QueueState } from "../../queue/index.ts";
import type { Principal } from "../../ports/api-tokens.ts";
import type { Repository } from "../../ports/test-case-storage.ts";
import {
  cancelPullRequest,
  isQueued,
  restartPullRequest,
} from "../../queue-commands/pull-request-commands.ts";
import { changeQueue } from "../../queue-commands/queue-updates.ts";
import { submitPullRequest } from "../../queue-commands/submission.ts";
import { fromAnotherSite, isFormToken } from "../browser-sessions.ts";
import { notFoundPage, sendPage } from "../page-replies.ts";
import { messagePage } from "../test-page-html.ts";
import type { PageContext } from "../page-context.ts";
import { queuePath } from "./queue-addresses.ts";
import { namedQueue } from "./queue-page.ts";
import type { QueuePageRequest } from "./queue-page-request.ts";

const queueActions = ["pause", "resume", "drain"] as const;
const pullRequestActions = ["cancel", "restart", "urgent"] as const;
type QueueAction = (typeof queueActions)[number];
type PullRequestAction = (typeof pullRequestActions)[number];

const isOneOf = <T extends string>(values: readonly T[], value: string): value is T =>
  (values as readonly string[]).includes(value);

const statusOf = { pause: "paused", resume: "running", drain: "draining" } as const;

interface QueueAtHand {
  deps: PageContext["deps"];
  id: string;
  repository: Repository;
  state: QueueState;
}

/** What a queue's control asks of the queue; its answer. */
function queueCommand({ deps, repository, state }: QueueAtHand, action: QueueAction) {
  return changeQueue(deps.github, {
    queue: { repo: repository, state },
    settings: {},
    status: statusOf[action],
  });
}

/** What a PR's control asks of the queue; its answer, or null for a PR the queue no longer holds. */
async function pullRequestCommand(
  queue: QueueAtHand,
  action: PullRequestAction,
  prNumber: number,
  principal: Principal,
) {
  const { state } = queue;
  switch (action) {
    case "cancel": {
      const by = `the queue page, signed in with API token ${principal.tokenId} of ${principal.organizationSlug}`;
      return cancelPullRequest({ state, prNumber, by });
    }
    case "restart":
      return restartPullRequest({ state, prNumber });
    case "urgent": {
      // A submission again, of the PR as the queue knows it (not GitHub): only its priority changes.
      const pr = state.prs[prNumber];
      if (pr === undefined || !isQueued(state, prNumber)) return null;
      const facts = { ...pr, open: true, merged: false, draft: false };
      return submitPullRequest(queue.deps.submissionReads, {
        queue: { id: queue.id, repo: queue.repository, state },
        pr: facts,
        priority: PRIORITY_VALUES.urgent,
        noBatch: pr.noBatch,
      });
    }
  }
}

const refused = (reply: FastifyReply, status: number, title: string, message: string) =>
  sendPage(reply, status, messagePage(title, message, { href: "", text: "Back to the queue" }));

/** Handles a control's form posted to a queue's page; `visible` is who posted it and to which queue. */
export async function controlQueue(
  context: PageContext,
  request: FastifyRequest<{ Body: Record<string, unknown> | undefined }>,
  reply: FastifyReply,
  visible: QueuePageRequest & { branch: string },
): Promise<FastifyReply> {
  const { deps } = context;
  const field = (name: string) => {
    const value = request.body?.[name];
    return typeof value === "string" ? value : "";
  };
  if (!isFormToken(field("form_token"), visible.visitor.formToken)) {
    return refused(
      reply,
      403,
      "This form was not sent from its page",
      "Nothing was changed: the form did not come from the queue's page in this browser session. Open the page and send it again.",
    );
  }
  const queue = await namedQueue(deps, visible);
  const state = queue === undefined ? undefined : await deps.queues.read(queue.id);
  if (queue === undefined || state === undefined) return notFoundPage(reply, "Queue");
  const atHand = { deps, id: queue.id, repository: visible.repository, state };

  const action = field("action");
  const prNumber = Number(field("pr"));
  let answer;
  if (isOneOf(queueActions, action)) answer = await queueCommand(atHand, action);
  else if (isOneOf(pullRequestActions, action) && Number.isSafeInteger(prNumber) && prNumber > 0) {
    answer = await pullRequestCommand(atHand, action, prNumber, visible.visitor.principal);
  } else return refused(reply, 400, "Nothing was changed", "The form asked for no change this page makes.");

  if (answer === null || answer.refused !== undefined) {
    const why =
      answer?.refused.code === "branch_rule_conflict"
        ? `${answer.refused.detail}.`
        : `#${prNumber} is not in the queue any more.`;
    return refused(reply, 409, "Nothing was changed", why);
  }
  await deps.queues.dispatch(queue.id, answer.events);
  const anchor = isOneOf(pullRequestActions, action) ? `#pr-${prNumber}` : "";
  const page = `${visible.root}${queuePath({ repository: visible.repository, branch: visible.branch }).slice(1)}`;
  return reply.redirect(`${page}?changed=${action}${anchor}`, 303);
}

/** Whether a post to the queue pages comes from another site (then nothing is changed). */
export function postedFromAnotherSite(context: PageContext, request: FastifyRequest): boolean {
  return fromAnotherSite(request, new URL(context.deps.config.publicUrl).host);
}
