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
import { repositoryPagePath, repositoryRefOf } from "./page-addresses.ts";
import { notFoundPage, sendPage } from "./page-replies.ts";
import { registerRepositoryPage, repositorySignIn } from "./repository-page.ts";
import { messagePage, type SignInTarget, signInPage, testPage } from "./test-page-html.ts";

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

/** Who a page request is from: the principal of its session's token, and the session (the cookie's value). */
export interface Visitor {
  principal: Principal;
  session: string;
}

/** What the routes of the pages share. */
export interface PageContext {
  deps: ApiDependencies;
  visitorOf(request: FastifyRequest): Promise<Visitor | null>;
  /** The 401 sign-in form, reloading once when a link from another site came without the cookie. */
  signIn(request: FastifyRequest, reply: FastifyReply, target: SignInTarget): FastifyReply;
}

/** The sign-in form of a test's page. */
const testSignIn = (testId: string): SignInTarget => ({
  action: "sign-in",
  fields: { test_id: testId },
  subject: "this test",
});

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

  const context: PageContext = {
    deps,
    async visitorOf(request) {
      const session = cookieValue(request.headers.cookie, SESSION_COOKIE);
      if (session === undefined) return null;
      const tokenId = (await sessions()).tokenIdOf(session, deps.clock());
      const principal = tokenId === null ? null : await principalOfToken(store.db, tokenId);
      return principal === null ? null : { principal, session };
    },
    signIn(request, reply, target) {
      const crossSite = request.headers["sec-fetch-site"] === "cross-site";
      const hasCookie = cookieValue(request.headers.cookie, SESSION_COOKIE) !== undefined;
      return sendPage(reply, 401, signInPage(target, { reload: crossSite && !hasCookie }));
    },
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
      registerRepositoryPage(pages, context);

      pages.get<{ Params: { testId: string } }>(
        "/:testId",
        { config: { public: true }, schema: { hide: true } },
        async (request, reply) => {
          const testId = request.params.testId.toLowerCase();
          if (!isUuid(testId)) return notFoundPage(reply);
          const visitor = await context.visitorOf(request);
          if (visitor === null) return context.signIn(request, reply, testSignIn(testId));
          const { principal } = visitor;
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
            repositoryPage: repositoryPagePath(repository),
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
          const returnTo = signInReturn(field("test_id"), field("repository"));
          if (returnTo === null) return notFoundPage(reply);
          const principal = await authenticate(store.db, field("token"), deps.clock());
          if (principal === null) {
            const error =
              "That token is unknown or revoked: check it, or create one with `switchyard token create`.";
            // Rendered at /tests/sign-in, whose form posts to itself.
            return sendPage(reply, 401, signInPage({ ...returnTo.target, action: "sign-in" }, { error }));
          }
          const session = (await sessions()).issue(principal.tokenId, deps.clock());
          // Relative to /tests/sign-in: the page signed in to, wherever a proxy mounts the service.
          return reply
            .header("set-cookie", sessionCookie(session, cookieOptions))
            .redirect(returnTo.location, 303);
        },
      );
    },
    { prefix: testPagesPrefix },
  );
}

/**
 * Where a sign-in returns to: the test's page or the repository's page its form names (and the same form again
 * when the token is refused). Only those two: the form is no way to send a browser elsewhere.
 */
function signInReturn(
  testIdField: string,
  repositoryField: string,
): { location: string; target: SignInTarget } | null {
  const testId = testIdField.toLowerCase();
  if (isUuid(testId)) return { location: testId, target: testSignIn(testId) };
  const [host = "", owner = "", name = "", ...rest] = repositoryField.split("/");
  const ref = rest.length === 0 ? repositoryRefOf(host, owner, name) : null;
  return ref === null ? null : { location: repositoryPagePath(ref), target: repositorySignIn(ref) };
}
