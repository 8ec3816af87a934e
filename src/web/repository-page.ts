// A repository's test health at /tests/<host>/<owner>/<name>: its broken, flaky and quarantined tests and those that
// failed in the last 7 days, read with the /v1 listings (test-health-use-cases/listing-definitions.ts) and paged
// with their signed page tokens, one per section in the page's query (?broken=…&flaky=…), so each section pages on
// its own.
import type { FastifyInstance } from "fastify";
import { CLASSIFICATION_WINDOW_MS, type TestCase } from "../test-health/index.ts";
import type { RepositoryRef } from "../ports/github-reads.ts";
import { type Listing, readPage } from "../test-health-use-cases/page-tokens.ts";
import { Refusal } from "../ports/refusals.ts";
import { organizationCovers } from "../http/organization-access.ts";
import {
  type FailureWindow,
  failingTestsListing,
  listingPageTokens,
  quarantinedTestsListing,
  unhealthyTestsListing,
} from "../test-health-use-cases/listing-definitions.ts";
import { unhealthyTestRecord } from "../presentation/test-records.ts";
import { recordContext, testStatistics } from "../test-health-use-cases/record-facts.ts";
import { fromRepositoryPage, repositoryRefOf } from "./page-addresses.ts";
import { notFoundPage, sendPage } from "./page-replies.ts";
import {
  type ListingSection,
  repositoryPage,
  type SectionName,
  sectionNames,
} from "./repository-page-html.ts";
import { messagePage, type SignInTarget } from "./test-page-html.ts";
import type { PageContext } from "./page-context.ts";
import { testHealthDependencies } from "../http/dependencies.ts";

/**
 * The failures of the last 7 days as of a walk's snapshot: (snapshot - 7 days, snapshot], so that a failure
 * received at the snapshot counts. Named by the snapshot alone, so the next page's token finds the same window.
 */
const lastSevenDays: FailureWindow = {
  query: ["last-7-days"],
  range: (snapshot) => ({ from: snapshot + 1 - CLASSIFICATION_WINDOW_MS, to: snapshot + 1 }),
};

/** The sign-in form of a repository's page (three segments below /tests/). */
export const repositorySignIn = (ref: RepositoryRef): SignInTarget => ({
  action: `${fromRepositoryPage}sign-in`,
  fields: { repository: `${ref.host}/${ref.owner}/${ref.name}` },
  subject: `the tests of ${ref.owner}/${ref.name}`,
});

interface ListedTest {
  testCase: TestCase;
  /** Failures in the last 7 days, for the failing tests. */
  failures?: number;
}

export function registerRepositoryPage(pages: FastifyInstance, context: PageContext): void {
  const { deps } = context;
  const listings = deps.testListings;
  const tokens = listingPageTokens(listings);

  pages.get<{ Params: { host: string; owner: string; name: string }; Querystring: Record<string, unknown> }>(
    "/:host/:owner/:name",
    { config: { public: true }, schema: { hide: true } },
    async (request, reply) => {
      const { host, owner, name } = request.params;
      const ref = repositoryRefOf(host, owner, name);
      if (ref === null) return notFoundPage(reply, "Repository");
      const visitor = await context.visitorOf(request);
      if (visitor === null) return context.signIn(request, reply, repositorySignIn(ref));
      if (!organizationCovers(visitor.principal, ref.host, ref.owner))
        return notFoundPage(reply, "Repository");
      const repository = await deps.repositories.findRepository(ref);
      if (repository === undefined) return notFoundPage(reply, "Repository");

      const positions = Object.fromEntries(
        sectionNames
          .map((section) => [section, request.query[section]])
          .filter(([, v]) => typeof v === "string"),
      ) as Partial<Record<SectionName, string>>;
      const read = async <Row, Key extends unknown[]>(
        section: SectionName,
        listing: Listing<Row, Key>,
        listed: (row: Row) => ListedTest,
      ) => {
        const { rows, page } = await readPage(
          await tokens(),
          { page_token: positions[section] ?? "" },
          listing,
          deps.clock(),
        );
        return { section, tests: rows.map(listed), page };
      };
      const asListed = (testCase: TestCase): ListedTest => ({ testCase });
      let sections;
      try {
        sections = await Promise.all([
          read("broken", unhealthyTestsListing(listings, repository, "broken"), asListed),
          read("flaky", unhealthyTestsListing(listings, repository, "flaky"), asListed),
          read("quarantined", quarantinedTestsListing(listings, repository), asListed),
          read(
            "failing",
            failingTestsListing(listings, repository, lastSevenDays, deps.config.testResultsRetentionDays),
            (row) => row,
          ),
        ]);
      } catch (error) {
        if (!(error instanceof Refusal) || error.code !== "invalid_page_token") throw error;
        const message =
          "A page link holds its place in a listing for 24 hours, and this one is older or was altered.";
        return sendPage(
          reply,
          400,
          messagePage("This page link has expired", message, { href: "?", text: "First pages" }),
        );
      }

      const testCases = [
        ...new Map(sections.flatMap((s) => s.tests.map((t) => [t.testCase.key, t.testCase]))).values(),
      ];
      const [recordsContext, statistics] = await Promise.all([
        recordContext(testHealthDependencies(deps), repository),
        testStatistics(deps.testHealth, testCases, deps.clock(), { full: false }),
      ]);
      // Links to another page of one section keep the other sections where they are.
      const pageLink = (section: SectionName, token: string) => {
        if (token === "") return null;
        const query = new URLSearchParams({ ...positions, [section]: token });
        return `?${query.toString()}`;
      };
      const firstPageLink = (section: SectionName) => {
        const { [section]: _dropped, ...others } = positions;
        return `?${new URLSearchParams(others).toString()}`;
      };
      const views: ListingSection[] = sections.map(({ section, tests, page }) => ({
        name: section,
        tests: tests.map((test) => ({
          record: unhealthyTestRecord(recordsContext, test.testCase, statistics.get(test.testCase.key)),
          quarantinedAt: test.testCase.quarantinedAt,
          failures: test.failures ?? null,
        })),
        totalRows: page.total_rows,
        pageIndex: page.page_index,
        totalPages: page.total_pages,
        links: {
          first: page.page_index > 0 ? firstPageLink(section) : null,
          prev: pageLink(section, page.prev_page_token),
          next: pageLink(section, page.next_page_token),
          last: pageLink(section, page.last_page_token),
        },
      }));
      const view = {
        repositoryName: `${repository.owner}/${repository.name}`,
        repositoryUrl: recordsContext.repositoryUrl,
        sections: views,
      };
      return sendPage(reply, 200, repositoryPage(view));
    },
  );
}
