// How the test pages answer: HTML with headers that forbid scripts, framing and caching.
import type { FastifyReply } from "fastify";
import { messagePage } from "./test-page-html.ts";

// No script runs on these pages (but the queue pages' own, see sendPage); their forms post to this service only; no other site may frame them. The
// referrer stays within the service: a form's post then carries its true Origin (with no-referrer, Chromium sends
// `Origin: null`, which the check against forgery must refuse), while links to other sites send none.
const securityHeaders = {
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "cache-control": "no-store",
};

/**
 * A page; `script: true` lets it run scripts of this service (and fetch from it), for the queue pages' live
 * updates, still none inline and none of another site.
 */
export function sendPage(
  reply: FastifyReply,
  status: number,
  body: string,
  options: { script?: boolean } = {},
) {
  const headers = options.script
    ? {
        ...securityHeaders,
        "content-security-policy": `${securityHeaders["content-security-policy"]}; script-src 'self'; connect-src 'self'`,
      }
    : securityHeaders;
  return reply.code(status).headers(headers).type("text/html; charset=utf-8").send(body);
}

/** The same 404 for what does not exist and what the visitor's organization may not see, so neither can be probed. */
export const notFoundPage = (reply: FastifyReply, what: "Test" | "Repository" | "Queue" = "Test") =>
  sendPage(
    reply,
    404,
    messagePage(
      `${what} not found`,
      `There is no such ${what.toLowerCase()}, or not one your organization can see.`,
    ),
  );

/** The answer to a page's script that asked whether a page changed, when it did not. */
export const sendUnchanged = (reply: FastifyReply, version: string) =>
  reply.code(304).headers(securityHeaders).header("etag", version).send();
