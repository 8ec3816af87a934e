// The HTML of the test pages: a test's record and recent results, the sign-in form, and error pages. Server-rendered,
// no script; every value is escaped, since test names and failure messages come from uploaded reports.
import type { RecentResult } from "../ports/test-page-reads.ts";
import type { testRecord } from "../presentation/test-records.ts";
import type { Markup } from "./html.ts";
import { html, link, page, percent, tableSection, time } from "./html.ts";

export type TestRecordView = ReturnType<typeof testRecord>;

export interface TestPageView {
  record: TestRecordView;
  /** owner/name */
  repositoryName: string;
  /** The repository's page, relative to the test's. */
  repositoryPage: string;
  /** When the test last became quarantined. */
  quarantinedAt: number | null;
  results: RecentResult[];
  triage: TriageView;
}

/** What the page's forms can change; each is also the `changed` of the page it answers 303 to. */
export const changes = ["quarantine-setting", "link-ticket", "unlink-ticket"] as const;
export type Change = (typeof changes)[number];

export interface TriageView {
  /** The session's anti-forgery token, which every form carries. */
  formToken: string;
  /** The change just made, to say so. */
  change?: Change | undefined;
  /** Why the change just asked for was refused. */
  error?: string;
  /** The ticket URL just refused, to correct it. */
  ticketInput?: string;
}

export const quarantineSettingText: Record<string, string> = {
  auto: "auto (quarantined while flaky)",
  always: "always quarantined",
  never: "never quarantined",
};

function statusSection(view: TestPageView): Markup {
  const { record } = view;
  const quarantine = record.quarantined
    ? html`quarantined${view.quarantinedAt === null ? "" : html` since ${time(view.quarantinedAt)}`}`
    : "not quarantined";
  return html`<section>
    <p>
      <span class="badge ${record.status.value}">${record.status.value}</span> since
      ${time(record.status.timestamp)}: ${record.status.reason}
    </p>
    <dl>
      <dt>Quarantine</dt>
      <dd>${quarantine}; setting: ${quarantineSettingText[record.quarantine_setting]}</dd>
      <dt>Ticket</dt>
      <dd>
        ${record.ticket === null ? html`<span class="muted">none linked</span>` : link(record.ticket.html_url, record.ticket.html_url)}
      </dd>
      <dt>Failure rate, last 7 days</dt>
      <dd>${percent(record.failure_rate_last_7d)}</dd>
      <dt>Failure rate, last 24 hours</dt>
      <dd>${percent(record.failure_rate_last_24h)}</dd>
      <dt>Pull requests impacted, last 7 days</dt>
      <dd>${record.pull_requests_impacted_last_7d}</dd>
      <dt>Code owners</dt>
      <dd>
        ${record.codeowners.length === 0 ? html`<span class="muted">none</span>` : record.codeowners.join(", ")}
      </dd>
    </dl>
  </section>`;
}

function commonFailuresSection(record: TestRecordView): Markup {
  const rows = record.most_common_failures.map(
    (failure) =>
      html`<tr>
        <td class="summary mono">${failure.summary}</td>
        <td>${failure.occurrence_count}</td>
        <td>${time(failure.last_occurrence)}</td>
      </tr>`,
  );
  const headings = ["Failure", "Times", "Last"];
  return tableSection("Most common failures, last 7 days", headings, rows, "No failures in the last 7 days.");
}

function resultsSection(view: TestPageView): Markup {
  const repositoryUrl = view.record.repository.html_url;
  const rows = view.results.map(
    (result) =>
      html`<tr>
        <td>${time(result.occurredAt)}</td>
        <td class="mono">${result.branch}</td>
        <td class="mono">
          ${link(`${repositoryUrl}/commit/${result.commitSha}`, result.commitSha.slice(0, 7))}
        </td>
        <td>
          ${result.prNumber === null ? "" : link(`${repositoryUrl}/pull/${result.prNumber}`, `#${result.prNumber}`)}
        </td>
        <td>
          ${result.jobName === null && result.runUrl === null ? "" : link(result.runUrl, result.jobName ?? "run")}
        </td>
        <td class="${result.outcome}">${result.outcome}</td>
        <td class="summary mono">${result.failureSummary}</td>
      </tr>`,
  );
  const headings = ["Time", "Branch", "Commit", "PR", "Job", "Outcome", "Failure"];
  return tableSection("Recent results, latest first", headings, rows, "No results are kept for this test.");
}

/** What the page says after a change: what the test's record says now, so a reload says the truth. */
function changeNotice(change: Change, record: TestRecordView): string {
  switch (change) {
    case "quarantine-setting":
      return `Saved: the quarantine setting is now ${record.quarantine_setting}; the test is ${record.quarantined ? "quarantined" : "not quarantined"}.`;
    case "link-ticket":
      return record.ticket === null
        ? "The test has no ticket."
        : `Saved: linked the ticket ${record.ticket.html_url}.`;
    case "unlink-ticket":
      return record.ticket === null ? "Saved: the test has no ticket now." : "The test has a ticket.";
  }
}

/** The forms of test-actions.ts; they post to the page's own address, carrying the session's form token. */
function triageSection(view: TestPageView): Markup {
  const { record, triage } = view;
  const action = record.id;
  const token = html`<input type="hidden" name="form_token" value="${triage.formToken}" />`;
  const options = ["auto", "always", "never"].map(
    (setting) =>
      html`<option value="${setting}" ${setting === record.quarantine_setting ? "selected" : ""}>
        ${quarantineSettingText[setting]}
      </option>`,
  );
  const unlink =
    record.ticket === null
      ? ""
      : html`<form method="post" action="${action}">
          ${token}<input type="hidden" name="action" value="unlink-ticket" />
          <button type="submit">Unlink the ticket</button>
        </form>`;
  const notice =
    triage.change === undefined ? "" : html`<p class="notice">${changeNotice(triage.change, record)}</p>`;
  const error = triage.error === undefined ? "" : html`<p class="error">${triage.error}</p>`;
  return html`<section id="triage">
    <h2>Triage</h2>
    ${notice} ${error}
    <form method="post" action="${action}">
      ${token}<input type="hidden" name="action" value="quarantine-setting" />
      <label for="setting">Quarantine setting</label>
      <select id="setting" name="setting">
        ${options}
      </select>
      <button type="submit">Save</button>
    </form>
    <form method="post" action="${action}">
      ${token}<input type="hidden" name="action" value="link-ticket" />
      <label for="ticket_url">Ticket URL</label>
      <input
        id="ticket_url"
        name="ticket_url"
        type="url"
        maxlength="2048"
        required
        value="${triage.ticketInput ?? record.ticket?.html_url ?? ""}"
      />
      <button type="submit">Link the ticket</button>
    </form>
    ${unlink}
  </section>`;
}

export function testPage(view: TestPageView): string {
  const { record } = view;
  const variant = record.variant === "" ? "" : html`, variant <code>${record.variant}</code>`;
  return page(
    record.name,
    html`<p class="muted">
        <a href="${view.repositoryPage}">${view.repositoryName}</a>
        (${link(record.repository.html_url, "on GitHub")}) · test <code>${record.id}</code>
      </p>
      <h1>${record.name}</h1>
      <p>
        Class <code>${record.classname}</code> in suite <code>${record.parent}</code>${variant}; file
        <code>${record.file_path === "" ? "(unknown)" : record.file_path}</code>
      </p>
      ${statusSection(view)} ${triageSection(view)} ${commonFailuresSection(record)} ${resultsSection(view)}`,
  );
}

/** What the sign-in form returns to: its action, relative to the page it is on, and the page it names. */
export interface SignInTarget {
  action: string;
  /** The form's hidden fields: test_id, or repository (host/owner/name). */
  fields: Record<string, string>;
  /** What the visitor signs in to see: "this test", "the tests of acme/widgets". */
  subject: string;
}

/**
 * The sign-in form. `reload` asks the browser to load the page once more: a link followed from another site
 * carries no SameSite=Strict cookie, the reload (a navigation of this site) does.
 */
export function signInPage(target: SignInTarget, options: { error?: string; reload?: boolean } = {}): string {
  const error = options.error === undefined ? "" : html`<p class="error">${options.error}</p>`;
  const fields = Object.entries(target.fields).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`,
  );
  return page(
    "Sign in",
    html`<h1>Sign in to see ${target.subject}</h1>
      <p>
        Browsers cannot send the <code>x-api-token</code> header, so paste an API token of your organization
        (<code>switchyard token create</code> makes one). You stay signed in for 12 hours; the browser keeps a
        signed session, never the token, and revoking the token ends it.
      </p>
      ${error}
      <form method="post" action="${target.action}">
        ${fields}
        <label for="token">API token</label>
        <input id="token" name="token" type="password" autocomplete="off" required />
        <button type="submit">Sign in</button>
      </form>`,
    { reload: options.reload === true },
  );
}

export function messagePage(title: string, message: string, next?: { href: string; text: string }): string {
  return page(
    title,
    html`<h1>${title}</h1>
      <p>${message}</p>
      ${next === undefined ? "" : html`<p><a href="${next.href}">${next.text}</a></p>`}`,
  );
}
