// The pages under /tests, for people: a test's page at its html_url (test-page.ts, with its actions in
// test-actions.ts) and a repository's test health (repository-page.ts). A browser signs in with an API token once
// (POST /tests/sign-in) and then carries a session cookie (browser-sessions.ts); the token's organization must cover
// the repository, as in the API.
import type { FastifyInstance } from "fastify";
import { validate as isUuid } from "uuid";
import type { EdgeDependencies } from "../http/dependencies.ts";
import {
  BrowserSessions,
  cookieValue,
  fromAnotherSite,
  SESSION_COOKIE,
  sessionCookie,
} from "./browser-sessions.ts";
import { repositoryPagePath, repositoryRefOf } from "./page-addresses.ts";
import { notFoundPage, sendPage } from "./page-replies.ts";
import { registerRepositoryPage, repositorySignIn } from "./repository-page.ts";
import { registerTestActions } from "./test-actions.ts";
import { queuePagePath, queuePagesPrefix, queueSignIn } from "./queues/queue-addresses.ts";
import { registerQueuePages } from "./queues/queue-pages.ts";
import { registerTestPage, testSignIn } from "./test-page.ts";
import { messagePage, type SignInTarget, signInPage } from "./test-page-html.ts";
import { type PageContext, preparePages } from "./page-context.ts";

export const testPagesPrefix = "/tests";

export async function registerTestPages(api: FastifyInstance, deps: EdgeDependencies): Promise<void> {
  const { tokens, config } = deps;
  let sessionSigner: Promise<BrowserSessions> | undefined;
  const sessions = () =>
    (sessionSigner ??= deps.browserSessionSecret().then((secret) => new BrowserSessions(secret)));
  const publicUrl = new URL(config.publicUrl);
  // One cookie per folder of pages: the session reaches the test pages and the queue pages, and not /v1.
  const basePath = publicUrl.pathname.replace(/\/+$/, "");
  const cookies = (session: string) =>
    [testPagesPrefix, queuePagesPrefix].map((prefix) =>
      sessionCookie(session, { path: `${basePath}${prefix}`, secure: publicUrl.protocol === "https:" }),
    );

  const context: PageContext = {
    deps,
    async visitorOf(request) {
      const session = cookieValue(request.headers.cookie, SESSION_COOKIE);
      if (session === undefined) return null;
      const signer = await sessions();
      const tokenId = signer.tokenIdOf(session, deps.clock());
      const principal = tokenId === null ? null : await tokens.principalOfToken(tokenId);
      return principal === null ? null : { principal, formToken: signer.formToken(session) };
    },
    signIn(request, reply, target) {
      const crossSite = request.headers["sec-fetch-site"] === "cross-site";
      const hasCookie = cookieValue(request.headers.cookie, SESSION_COOKIE) !== undefined;
      return sendPage(reply, 401, signInPage(target, { reload: crossSite && !hasCookie }));
    },
  };

  await api.register(
    async (pages) => {
      preparePages(pages, deps);
      pages.setNotFoundHandler((_request, reply) => notFoundPage(reply));
      registerTestPage(pages, context);
      registerTestActions(pages, context);
      registerRepositoryPage(pages, context);

      pages.post<{ Body: Record<string, unknown> | undefined }>(
        "/sign-in",
        { config: { public: true, takesForm: true }, schema: { hide: true } },
        async (request, reply) => {
          // SameSite keeps the cookie from other sites' requests; this keeps other sites from signing a browser in.
          if (fromAnotherSite(request, publicUrl.host)) {
            return sendPage(reply, 403, messagePage("Sign in here", "Sign in from the test's own page."));
          }
          const field = (name: string) => {
            const value = request.body?.[name];
            return typeof value === "string" ? value.trim() : "";
          };
          const returnTo = signInReturn(field("test_id"), field("repository"), field("queue"));
          if (returnTo === null) return notFoundPage(reply);
          const principal = await tokens.authenticate(field("token"), deps.clock());
          if (principal === null) {
            const error =
              "That token is unknown or revoked: check it, or create one with `switchyard token create`.";
            // Rendered at /tests/sign-in, whose form posts to itself.
            return sendPage(reply, 401, signInPage({ ...returnTo.target, action: "sign-in" }, { error }));
          }
          const session = (await sessions()).issue(principal.tokenId, deps.clock());
          // Relative to /tests/sign-in: the page signed in to, wherever a proxy mounts the service.
          return reply.header("set-cookie", cookies(session)).redirect(returnTo.location, 303);
        },
      );
    },
    { prefix: testPagesPrefix },
  );
  await registerQueuePages(api, context);
}

/**
 * Where a sign-in returns to: the test's page, the repository's page or the queue page its form names (and the
 * same form again when the token is refused). Only those: the form is no way to send a browser elsewhere.
 */
function signInReturn(
  testIdField: string,
  repositoryField: string,
  queueField: string,
): { location: string; target: SignInTarget } | null {
  const testId = testIdField.toLowerCase();
  if (isUuid(testId)) return { location: testId, target: testSignIn(testId) };
  if (queueField !== "") {
    const address = queuePagePath(queueField);
    return address === null ? null : { location: `..${address}`, target: queueSignIn(queueField, "../") };
  }
  const [host = "", owner = "", name = "", ...rest] = repositoryField.split("/");
  const ref = rest.length === 0 ? repositoryRefOf(host, owner, name) : null;
  return ref === null ? null : { location: repositoryPagePath(ref), target: repositorySignIn(ref) };
}
