// The HTML of a repository's test health page: a summary of counts, then one table per listing, each row linking
// to the test's page, each table with its own paging links.
import type { unhealthyTestRecord } from "../presentation/test-records.ts";
import { html, link, type Markup, page, tableSection, time } from "./html.ts";
import { fromRepositoryPage } from "./page-addresses.ts";
import { quarantineSettingText } from "./test-page-html.ts";

export const sectionNames = ["broken", "flaky", "quarantined", "failing"] as const;
export type SectionName = (typeof sectionNames)[number];

export interface ListedTestView {
  record: ReturnType<typeof unhealthyTestRecord>;
  quarantinedAt: number | null;
  /** Failures in the last 7 days (the failing tests only). */
  failures: number | null;
}

export interface ListingSection {
  name: SectionName;
  tests: ListedTestView[];
  totalRows: number;
  pageIndex: number;
  totalPages: number;
  /** Relative links to the section's other pages; null where there is none. */
  links: Record<"first" | "prev" | "next" | "last", string | null>;
}

export interface RepositoryPageView {
  /** owner/name */
  repositoryName: string;
  /** The repository on GitHub. */
  repositoryUrl: string;
  sections: ListingSection[];
}

const sectionText: Record<SectionName, { title: string; order: string; summary: string; empty: string }> = {
  broken: {
    title: "Broken tests",
    order: "most recent status change first",
    summary: "broken",
    empty: "No test is broken.",
  },
  flaky: {
    title: "Flaky tests",
    order: "most recent status change first",
    summary: "flaky",
    empty: "No test is flaky.",
  },
  quarantined: {
    title: "Quarantined tests",
    order: "most recently quarantined first",
    summary: "quarantined",
    empty: "No test is quarantined.",
  },
  failing: {
    title: "Tests that failed in the last 7 days",
    order: "most failures first",
    summary: "failed in the last 7 days",
    empty: "No test failed in the last 7 days.",
  },
};

function testRow(section: SectionName, test: ListedTestView): Markup {
  const { record } = test;
  const quarantine = record.quarantined ? "quarantined" : "not quarantined";
  const extra =
    section === "failing"
      ? html`<td>${test.failures}</td>`
      : section === "quarantined"
        ? html`<td>${test.quarantinedAt === null ? "" : time(test.quarantinedAt)}</td>`
        : html``;
  return html`<tr>
    <td>
      <a href="${fromRepositoryPage}${record.id}">${record.name}</a><br />
      <span class="muted mono">${record.classname}</span>
    </td>
    <td>
      <span class="badge ${record.status.value}">${record.status.value}</span> since
      ${time(record.status.timestamp)}
    </td>
    <td>${quarantine}; ${quarantineSettingText[record.quarantine_setting]}</td>
    <td>${record.pull_requests_impacted_last_7d}</td>
    <td>${record.ticket === null ? "" : link(record.ticket.html_url, "ticket")}</td>
    ${extra}
  </tr>`;
}

function pagingLinks(section: ListingSection): Markup {
  if (section.totalPages <= 1) return html``;
  const labels = { first: "first", prev: "previous", next: "next", last: "last" } as const;
  const links = (Object.keys(labels) as (keyof typeof labels)[])
    .map((which) => [section.links[which], labels[which]] as const)
    .filter(([href]) => href !== null)
    .map(([href, label]) => html` · <a href="${href}#${section.name}">${label}</a>`);
  return html`<p>Page ${section.pageIndex + 1} of ${section.totalPages}${links}</p>`;
}

function listingSection(section: ListingSection): Markup {
  const text = sectionText[section.name];
  const headings = ["Test", "Status", "Quarantine", "PRs impacted, 7 days", "Ticket"];
  if (section.name === "failing") headings.push("Failures, 7 days");
  if (section.name === "quarantined") headings.push("Quarantined since");
  const rows = section.tests.map((test) => testRow(section.name, test));
  const title = html`${text.title} (${section.totalRows}) <span class="muted">· ${text.order}</span>`;
  return html`<section id="${section.name}">
    ${tableSection(title, headings, rows, text.empty)} ${pagingLinks(section)}
  </section>`;
}

export function repositoryPage(view: RepositoryPageView): string {
  const summary = view.sections.map(
    (section, index) =>
      html`${index === 0 ? "" : " · "}<a href="#${section.name}"
          >${section.totalRows} ${sectionText[section.name].summary}</a
        >`,
  );
  return page(
    `Tests of ${view.repositoryName}`,
    html`<p class="muted">${link(view.repositoryUrl, `${view.repositoryName} on GitHub`)}</p>
      <h1>Test health of ${view.repositoryName}</h1>
      <p>${summary}</p>
      ${view.sections.map(listingSection)}`,
  );
}
