// The pages under /queues, for people watching their merge queues: a repository's queues
// (repository-queues-page.ts) and one queue (queue-page.ts). Signed in as the test pages are (the same session
// cookie, the same sign-in form), and the token's organization must cover the repository, as in the API.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { organizationCovers } from "../../http/organization-access.ts";
import { notFoundPage, sendPage } from "../page-replies.ts";
import { messagePage } from "../test-page-html.ts";
import { preparePages, type PageContext } from "../page-context.ts";
import {
  type QueueAddress,
  queueAddressOf,
  queuePagesPrefix,
  queueSignIn,
  toRootFrom,
} from "./queue-addresses.ts";
import type { QueuePageRequest } from "./queue-page-request.ts";
import { liveScript, liveScriptPath } from "./live-script.ts";
import { controlQueue, postedFromAnotherSite } from "./queue-actions.ts";
import { showQueuePage } from "./queue-page.ts";
import { showRepositoryQueues } from "./repository-queues-page.ts";

/**
 * The visitor and repository of a request to `address`, or null once the reply is sent: a sign-in form without a
 * session, the same 404 for a repository that does not exist and one the organization does not cover.
 */
export async function visibleQueueRequest(
  context: PageContext,
  request: FastifyRequest,
  reply: FastifyReply,
  address: string,
): Promise<QueuePageRequest | null> {
  const named: QueueAddress | null = queueAddressOf(address);
  if (named === null) {
    await notFoundPage(reply, "Repository");
    return null;
  }
  const root = toRootFrom(request.url);
  const visitor = await context.visitorOf(request);
  if (visitor === null) {
    await context.signIn(request, reply, queueSignIn(address, root));
    return null;
  }
  const { repository: ref, branch } = named;
  const repository = organizationCovers(visitor.principal, ref.host, ref.owner)
    ? await context.deps.repositories.findRepository(ref)
    : undefined;
  if (repository === undefined) {
    await notFoundPage(reply, "Repository");
    return null;
  }
  return { visitor, repository, branch, root };
}

export async function registerQueuePages(api: FastifyInstance, context: PageContext): Promise<void> {
  await api.register(
    async (pages) => {
      preparePages(pages, context.deps);
      pages.setNotFoundHandler((_request, reply) => notFoundPage(reply, "Repository"));
      pages.get(liveScriptPath, { config: { public: true }, schema: { hide: true } }, (_request, reply) =>
        reply
          .headers({ "x-content-type-options": "nosniff", "cache-control": "max-age=300" })
          .type("text/javascript; charset=utf-8")
          .send(liveScript),
      );
      pages.get<{ Params: { "*": string }; Querystring: Record<string, unknown> }>(
        "/*",
        { config: { public: true }, schema: { hide: true } },
        async (request, reply) => {
          const visible = await visibleQueueRequest(context, request, reply, request.params["*"]);
          if (visible === null) return reply;
          return visible.branch === null
            ? showRepositoryQueues(context, reply, visible)
            : showQueuePage(context, request, reply, { ...visible, branch: visible.branch });
        },
      );
      pages.post<{ Params: { "*": string }; Body: Record<string, unknown> | undefined }>(
        "/*",
        { config: { public: true, takesForm: true }, schema: { hide: true } },
        async (request, reply) => {
          if (postedFromAnotherSite(context, request)) {
            return sendPage(
              reply,
              403,
              messagePage(
                "This form was not sent from its page",
                "Nothing was changed: send it from the queue's page.",
              ),
            );
          }
          const visible = await visibleQueueRequest(context, request, reply, request.params["*"]);
          if (visible === null) return reply;
          if (visible.branch === null) return notFoundPage(reply, "Queue");
          return controlQueue(context, request, reply, { ...visible, branch: visible.branch });
        },
      );
    },
    { prefix: queuePagesPrefix },
  );
}
