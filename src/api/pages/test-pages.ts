// A test's page at its html_url (contract 7.5: `${PUBLIC_URL}/tests/<id>`): what get-test-details answers, and the
// latest results, for a person. A browser signs in with an API token once (POST /tests/sign-in) and then carries a
// session cookie (browser-sessions.ts); the token's organization must cover the test's repository, as in the API.
import { STATUS_CODES } from "node:http";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { validate as isUuid } from "uuid";
import { serviceSecret } from "../../store/service-secrets.ts";
import { findTestCaseById, recentResults } from "../../store/test-history.ts";
import { authenticate, type Principal, principalOfToken } from "../../store/tokens.ts";
import type { ApiDependencies } from "../dependencies.ts";
import { organizationCovers } from "../repo-access.ts";
import { fullTestRecords } from "../test-records.ts";
import { BrowserSessions, cookieValue, SESSION_COOKIE, sessionCookie } from "./browser-sessions.ts";
import { messagePage, signInPage, testPage } from "./test-page-html.ts";

export const testPagesPrefix = "/tests";

/** How many of the latest results the page lists. */
const RECENT_RESULTS = 50;
/** A sign-in form is a token and a test id; anything much larger is not one. */
const FORM_BODY_LIMIT = 4096;

declare module "fastify" {
  interface FastifyContextConfig {
    /** Routes that take an HTML form (application/x-www-form-urlencoded) instead of JSON. */
    takesForm?: boolean;
  }
}

// No script runs on these pages; their only form posts to this service; no other site may frame them.
const securityHeaders = {
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

function sendPage(reply: FastifyReply, status: number, body: string) {
  return reply.code(status).headers(securityHeaders).type("text/html; charset=utf-8").send(body);
}

const notFoundPage = (reply: FastifyReply) =>
  sendPage(
    reply,
    404,
    messagePage("Test not found", "There is no such test, or not one your organization can see."),
  );

export async function registerTestPages(api: FastifyInstance, deps: ApiDependencies): Promise<void> {
  const { store, config } = deps;
  let sessionSigner: Promise<BrowserSessions> | undefined;
  const sessions = () =>
    (sessionSigner ??= serviceSecret(store.db, "browser_sessions").then(
      (secret) => new BrowserSessions(secret),
    ));
  const publicUrl = new URL(config.publicUrl);
  const cookieOptions = {
    path: `${publicUrl.pathname.replace(/\/+$/, "")}${testPagesPrefix}`,
    secure: publicUrl.protocol === "https:",
  };

  const sessionPrincipal = async (request: FastifyRequest): Promise<Principal | null> => {
    const session = cookieValue(request.headers.cookie, SESSION_COOKIE);
    if (session === undefined) return null;
    const tokenId = (await sessions()).tokenIdOf(session, deps.clock());
    return tokenId === null ? null : principalOfToken(store.db, tokenId);
  };

  await api.register(
    async (pages) => {
      pages.addContentTypeParser(
        "application/x-www-form-urlencoded",
        { parseAs: "string", bodyLimit: FORM_BODY_LIMIT },
        (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
      );
      pages.setErrorHandler((error: { statusCode?: number }, request, reply) => {
        const status = error.statusCode !== undefined && error.statusCode < 500 ? error.statusCode : 500;
        if (status === 500) {
          deps.log.error({ err: error, requestId: request.id, url: request.url }, "test page failed");
          return sendPage(
            reply,
            500,
            messagePage("Something went wrong", `The service logged it as request ${request.id}.`),
          );
        }
        const title = STATUS_CODES[status] ?? "Bad Request";
        return sendPage(reply, status, messagePage(title, "This request cannot be answered."));
      });
      pages.setNotFoundHandler((_request, reply) => notFoundPage(reply));

      pages.get<{ Params: { testId: string } }>(
        "/:testId",
        { config: { public: true }, schema: { hide: true } },
        async (request, reply) => {
          const testId = request.params.testId.toLowerCase();
          if (!isUuid(testId)) return notFoundPage(reply);
          const principal = await sessionPrincipal(request);
          if (principal === null) {
            const crossSite = request.headers["sec-fetch-site"] === "cross-site";
            const hasCookie = cookieValue(request.headers.cookie, SESSION_COOKIE) !== undefined;
            return sendPage(reply, 401, signInPage({ testId, reload: crossSite && !hasCookie }));
          }
          const found = await findTestCaseById(store.db, testId);
          if (found === undefined) return notFoundPage(reply);
          const { testCase, repository } = found;
          if (!organizationCovers(principal, repository.host, repository.owner)) return notFoundPage(reply);
          const [[record], results] = await Promise.all([
            fullTestRecords(deps, repository, [testCase]),
            recentResults(store.db, testCase.key, RECENT_RESULTS),
          ]);
          const view = {
            record: record as NonNullable<typeof record>,
            repositoryName: `${repository.owner}/${repository.name}`,
            quarantinedAt: testCase.quarantinedAt,
            results,
          };
          return sendPage(reply, 200, testPage(view));
        },
      );

      pages.post<{ Body: Record<string, unknown> | undefined }>(
        "/sign-in",
        { config: { public: true, takesForm: true }, schema: { hide: true } },
        async (request, reply) => {
          // SameSite keeps the cookie from other sites' requests; this keeps other sites from signing a browser in.
          if (request.headers["sec-fetch-site"] === "cross-site") {
            return sendPage(reply, 403, messagePage("Sign in here", "Sign in from the test's own page."));
          }
          const field = (name: string) => {
            const value = request.body?.[name];
            return typeof value === "string" ? value.trim() : "";
          };
          const testId = field("test_id").toLowerCase();
          if (!isUuid(testId)) return notFoundPage(reply);
          const principal = await authenticate(store.db, field("token"), deps.clock());
          if (principal === null) {
            const error =
              "That token is unknown or revoked: check it, or create one with `switchyard token create`.";
            return sendPage(reply, 401, signInPage({ testId, error }));
          }
          const session = (await sessions()).issue(principal.tokenId, deps.clock());
          // Relative to /tests/sign-in: the test's page, wherever a proxy mounts the service.
          return reply.header("set-cookie", sessionCookie(session, cookieOptions)).redirect(testId, 303);
        },
      );
    },
    { prefix: testPagesPrefix },
  );
}
