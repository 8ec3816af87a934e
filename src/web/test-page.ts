// A test's page at its html_url (`${PUBLIC_URL}/tests/<id>`: docs/test-health.md#a-tests-page): what get-test-details answers, the
// latest results, and the forms of test-actions.ts, for a person.
import type { FastifyInstance, FastifyReply } from "fastify";
import { validate as isUuid } from "uuid";
import type { Repository } from "../ports/test-case-storage.ts";
import type { TestCase } from "../test-health/index.ts";
import { testHealthDependencies } from "../http/dependencies.ts";
import { organizationCovers } from "../http/organization-access.ts";
import { fullTestRecords } from "../test-health-use-cases/record-facts.ts";
import { repositoryPagePath } from "./page-addresses.ts";
import { notFoundPage, sendPage } from "./page-replies.ts";
import { changes, type SignInTarget, type TriageView, testPage } from "./test-page-html.ts";
import type { PageContext, Visitor } from "./page-context.ts";

/** How many of the latest results the page lists. */
const RECENT_RESULTS = 50;

/** The sign-in form of a test's page. */
export const testSignIn = (testId: string): SignInTarget => ({
  action: "sign-in",
  fields: { test_id: testId },
  subject: "this test",
});

/** A test and its repository, when the visitor's organization may see them. */
export async function visibleTest(
  context: PageContext,
  visitor: Visitor,
  testId: string,
): Promise<{ testCase: TestCase; repository: Repository } | undefined> {
  const found = await context.deps.testPages.findTestCaseById(testId);
  const visible =
    found && organizationCovers(visitor.principal, found.repository.host, found.repository.owner);
  return visible ? found : undefined;
}

/** Answers with the test's page: after an action, `triage` says what changed or why nothing did. */
export async function showTestPage(
  context: PageContext,
  reply: FastifyReply,
  status: number,
  found: { testCase: TestCase; repository: Repository },
  triage: TriageView,
) {
  const { deps } = context;
  const { testCase, repository } = found;
  const [[record], results] = await Promise.all([
    fullTestRecords(testHealthDependencies(deps), repository, [testCase]),
    deps.testPages.recentResults(testCase.key, RECENT_RESULTS),
  ]);
  const view = {
    record: record as NonNullable<typeof record>,
    repositoryName: `${repository.owner}/${repository.name}`,
    repositoryPage: repositoryPagePath(repository),
    quarantinedAt: testCase.quarantinedAt,
    results,
    triage,
  };
  return sendPage(reply, status, testPage(view));
}

export function registerTestPage(pages: FastifyInstance, context: PageContext): void {
  pages.get<{ Params: { testId: string }; Querystring: { changed?: unknown } }>(
    "/:testId",
    { config: { public: true }, schema: { hide: true } },
    async (request, reply) => {
      const testId = request.params.testId.toLowerCase();
      if (!isUuid(testId)) return notFoundPage(reply);
      const visitor = await context.visitorOf(request);
      if (visitor === null) return context.signIn(request, reply, testSignIn(testId));
      const found = await visibleTest(context, visitor, testId);
      if (found === undefined) return notFoundPage(reply);
      // After an action (Post/Redirect/Get): which one, so the page can say what it changed.
      const { changed } = request.query;
      const change = changes.find((known) => known === changed);
      return showTestPage(context, reply, 200, found, { formToken: visitor.formToken, change });
    },
  );
}
