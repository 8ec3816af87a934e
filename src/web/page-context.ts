// What every page route shares: who is asking (the visitor of a signed-in browser session), the service's
// dependencies, and how forms are read and errors answered.
import { loggableUrl } from "../http/request-log.ts";
import { Problem } from "../http/problem.ts";
import { STATUS_CODES } from "node:http";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { EdgeDependencies } from "../http/dependencies.ts";
import type { Principal } from "../ports/api-tokens.ts";
import { sendPage } from "./page-replies.ts";
import { messagePage, type SignInTarget } from "./test-page-html.ts";

/** The largest form is a ticket URL (2048 characters, each at most 3 escaped) and a form token. */
const FORM_BODY_LIMIT = 8192;

declare module "fastify" {
  interface FastifyContextConfig {
    /** Routes that take an HTML form (application/x-www-form-urlencoded) instead of JSON. */
    takesForm?: boolean;
  }
}

/** Who a page request is from: the principal of its session's token, and the session's form token. */
export interface Visitor {
  principal: Principal;
  formToken: string;
}

/** What the routes of the pages share. */
export interface PageContext {
  deps: EdgeDependencies;
  visitorOf(request: FastifyRequest): Promise<Visitor | null>;
  /** The 401 sign-in form, reloading once when a link from another site came without the cookie. */
  signIn(request: FastifyRequest, reply: FastifyReply, target: SignInTarget): FastifyReply;
}

/** What every folder of pages shares: forms as bodies, and errors and unknown addresses answered as pages. */
export function preparePages(pages: FastifyInstance, deps: EdgeDependencies): void {
  pages.addContentTypeParser(
    "application/x-www-form-urlencoded",
    { parseAs: "string", bodyLimit: FORM_BODY_LIMIT },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
  pages.setErrorHandler((error: { statusCode?: number }, request, reply) => {
    // Fastify's errors carry statusCode; ours (the /v1 hooks', which pages pass through too) carry status.
    const refusal = error instanceof Problem ? error.status : error.statusCode;
    const status = refusal !== undefined && refusal < 500 ? refusal : 500;
    if (status === 500) {
      deps.log.error(
        { err: error, requestId: request.id, url: loggableUrl(request.url) },
        "test page failed",
      );
      return sendPage(
        reply,
        500,
        messagePage("Something went wrong", `The service logged it as request ${request.id}.`),
      );
    }
    const title = STATUS_CODES[status] ?? "Bad Request";
    return sendPage(reply, status, messagePage(title, "This request cannot be answered."));
  });
}
