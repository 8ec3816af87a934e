// The HTML of the test pages: a test's record and recent results, the sign-in form, and error pages. Server-rendered,
// no script; every value is escaped, since test names and failure messages come from uploaded reports.
import type { RecentResult } from "../../store/test-history.ts";
import type { testRecord } from "../test-records.ts";

export type TestRecordView = ReturnType<typeof testRecord>;

export interface TestPageView {
  record: TestRecordView;
  /** owner/name */
  repositoryName: string;
  /** When the test last became quarantined. */
  quarantinedAt: number | null;
  results: RecentResult[];
}

const entities: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => entities[character] as string);
}

/** Markup made by `html`, which it inserts as it is. */
class Markup {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Value = Markup | string | number | null | undefined | readonly Markup[];

/** A template tag that escapes every interpolated value but Markup (and arrays of it). */
function html(strings: TemplateStringsArray, ...values: Value[]): Markup {
  const render = (value: Value): string => {
    if (value instanceof Markup) return value.text;
    if (Array.isArray(value)) return value.map(render).join("");
    return value === null || value === undefined ? "" : escapeHtml(String(value));
  };
  return new Markup(strings.reduce((out, text, index) => out + render(values[index - 1]) + text));
}

/** A link when `href` is an http(s) URL (uploads name run URLs freely), else the text alone. */
function link(href: string | null, text: string | Markup): Markup {
  const safe = href !== null && URL.canParse(href) && /^https?:$/.test(new URL(href).protocol);
  return safe ? html`<a href="${href}" rel="noreferrer">${text}</a>` : html`${text}`;
}

const time = (epochMs: number | string) => {
  const iso = new Date(epochMs).toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace("T", " ")} UTC</time>`;
};

const percent = (fraction: number) => `${(fraction * 100).toFixed(1)}%`;

const stylesheet = `
body { font: 15px/1.5 system-ui, sans-serif; color: #1f2328; margin: 0; background: #f6f8fa; }
main { max-width: 72rem; margin: 0 auto; padding: 1.5rem; background: #fff; min-height: 100vh; }
h1 { font-size: 1.5rem; margin: 0.25rem 0; overflow-wrap: anywhere; }
h2 { font-size: 1.1rem; margin-top: 2rem; }
code, .mono { font-family: ui-monospace, monospace; font-size: 0.9em; overflow-wrap: anywhere; }
a { color: #0969da; }
.muted { color: #59636e; }
.badge { display: inline-block; padding: 0 0.6em; border-radius: 1em; font-weight: 600; color: #fff; }
.healthy { background: #1a7f37; } .flaky { background: #9a6700; } .broken { background: #cf222e; }
.failed { color: #cf222e; font-weight: 600; } .passed { color: #1a7f37; } .skipped { color: #59636e; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1.5rem; }
dt { color: #59636e; } dd { margin: 0; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 0.3rem 0.6rem; border-bottom: 1px solid #d1d9e0; vertical-align: top; }
td.summary { overflow-wrap: anywhere; }
form { display: flex; gap: 0.5rem; flex-wrap: wrap; align-items: center; }
input[type=password] { font: inherit; padding: 0.3rem; min-width: 24rem; }
.error { color: #cf222e; }
`;

function page(title: string, body: Markup, options: { reload?: boolean } = {}): string {
  const reload = options.reload ? html`<meta http-equiv="refresh" content="0" />` : "";
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        ${reload}
        <title>${title} · Switchyard</title>
        <style>
          ${new Markup(stylesheet)}
        </style>
      </head>
      <body>
        <main>${body}</main>
      </body>
    </html> `.text;
}

const quarantineSettingText: Record<string, string> = {
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

/** A section with a table of `rows` under `headings`, or the sentence `empty` when there are no rows. */
function tableSection(title: string, headings: string[], rows: Markup[], empty: string): Markup {
  if (rows.length === 0)
    return html`<h2>${title}</h2>
      <p class="muted">${empty}</p>`;
  const head = headings.map((heading) => html`<th>${heading}</th>`);
  return html`<h2>${title}</h2>
    <table>
      <thead>
        <tr>
          ${head}
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>`;
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

export function testPage(view: TestPageView): string {
  const { record } = view;
  const variant = record.variant === "" ? "" : html`, variant <code>${record.variant}</code>`;
  return page(
    record.name,
    html`<p class="muted">
        ${link(record.repository.html_url, view.repositoryName)} · test <code>${record.id}</code>
      </p>
      <h1>${record.name}</h1>
      <p>
        Class <code>${record.classname}</code> in suite <code>${record.parent}</code>${variant}; file
        <code>${record.file_path === "" ? "(unknown)" : record.file_path}</code>
      </p>
      ${statusSection(view)} ${commonFailuresSection(record)} ${resultsSection(view)}`,
  );
}

/**
 * The sign-in form. `reload` asks the browser to load the page once more: a link followed from another site
 * carries no SameSite=Strict cookie, the reload (a navigation of this site) does.
 */
export function signInPage(options: { testId: string; error?: string; reload?: boolean }): string {
  const error = options.error === undefined ? "" : html`<p class="error">${options.error}</p>`;
  return page(
    "Sign in",
    html`<h1>Sign in to see this test</h1>
      <p>
        Browsers cannot send the <code>x-api-token</code> header, so paste an API token of your organization
        (<code>switchyard token create</code> makes one). You stay signed in for 12 hours; the browser keeps a
        signed session, never the token, and revoking the token ends it.
      </p>
      ${error}
      <form method="post" action="sign-in">
        <input type="hidden" name="test_id" value="${options.testId}" />
        <label for="token">API token</label>
        <input id="token" name="token" type="password" autocomplete="off" required />
        <button type="submit">Sign in</button>
      </form>`,
    { reload: options.reload === true },
  );
}

export function messagePage(title: string, message: string): string {
  return page(
    title,
    html`<h1>${title}</h1>
      <p>${message}</p>`,
  );
}
