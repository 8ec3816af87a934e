// The controls of a queue's page: pause, resume and drain the queue; cancel or restart a PR, or make it urgent.
// Each is a form posted to the page's own address with the session's anti-forgery token, from this site only, by
// a visitor whose organization covers the repository (who may see the page). The queue core decides what each
// means, as for the /v1 endpoints of the same names; a success answers 303 back to the page (Post/Redirect/Get).
import { randomUUID } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { QueueEvent, QueueState } from "../../queue/index.ts";
import type { Principal } from "../../store/tokens.ts";
import { PRIORITY_VALUES } from "../../queue/priority.ts";
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

function queueEvent(action: QueueAction): QueueEvent {
  const status = { pause: "paused", resume: "running", drain: "draining" } as const;
  return { type: "queue_updated", settings: {}, status: status[action] };
}

/** The event of a PR's control, or null when the PR is not (or no longer) queued. */
function pullRequestEvent(
  state: QueueState,
  action: PullRequestAction,
  prNumber: number,
  principal: Principal,
): QueueEvent | null {
  const pr = state.prs[prNumber];
  if (pr === undefined || !state.line.includes(prNumber)) return null;
  switch (action) {
    case "cancel":
      return {
        type: "cancel_requested",
        prNumber,
        reason: "cancelled_by_user",
        by: `the queue page, signed in with API token ${principal.tokenId} of ${principal.organizationSlug}`,
      };
    case "restart":
      return { type: "restart_requested", prNumber };
    case "urgent": {
      // A PR already queued only changes its priority when submitted again; its facts stay its own. (Should it
      // leave the queue in between, this submits it anew, as `/merge` with a priority would.)
      const facts = {
        number: pr.number,
        title: pr.title,
        headSha: pr.headSha,
        baseBranch: pr.baseBranch,
        author: pr.author,
        mergeability: pr.mergeability,
      };
      return {
        type: "pr_submitted",
        submissionId: randomUUID(),
        pr: facts,
        priority: PRIORITY_VALUES.urgent,
        noBatch: pr.noBatch,
      };
    }
  }
}

const refused = (reply: FastifyReply, status: number, title: string, message: string) =>
  sendPage(reply, status, messagePage(title, message, { href: "", text: "Back to the queue" }));

/** Handles a control's form posted to a queue's page; `visible` is who posted it and to which queue. */
export async function changeQueue(
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
  const state = queue === undefined ? undefined : await deps.engine.read(queue.id);
  if (queue === undefined || state === undefined) return notFoundPage(reply, "Queue");

  const action = field("action");
  const prNumber = Number(field("pr"));
  let event: QueueEvent | null;
  if (isOneOf(queueActions, action)) event = queueEvent(action);
  else if (isOneOf(pullRequestActions, action) && Number.isSafeInteger(prNumber) && prNumber > 0) {
    event = pullRequestEvent(state, action, prNumber, visible.visitor.principal);
    if (event === null) {
      return refused(reply, 409, "Nothing was changed", `#${prNumber} is not in the queue any more.`);
    }
  } else return refused(reply, 400, "Nothing was changed", "The form asked for no change this page makes.");

  await deps.engine.dispatch(queue.id, [event]);
  const anchor = isOneOf(pullRequestActions, action) ? `#pr-${prNumber}` : "";
  const page = `${visible.root}${queuePath({ repository: visible.repository, branch: visible.branch }).slice(1)}`;
  return reply.redirect(`${page}?changed=${action}${anchor}`, 303);
}

/** Whether a post to the queue pages comes from another site (then nothing is changed). */
export function postedFromAnotherSite(context: PageContext, request: FastifyRequest): boolean {
  return fromAnotherSite(request, new URL(context.deps.config.publicUrl).host);
}
