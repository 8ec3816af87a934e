// The markup of the pages: a template tag that escapes every value it is given (test names and failure messages
// come from uploaded reports), a few formats, and the page frame with its small stylesheet. No script but the
// queue pages' own.
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
export class Markup {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Value = Markup | string | number | null | undefined | readonly Markup[];

/** A template tag that escapes every interpolated value but Markup (and arrays of it). */
export function html(strings: TemplateStringsArray, ...values: Value[]): Markup {
  const render = (value: Value): string => {
    if (value instanceof Markup) return value.text;
    if (Array.isArray(value)) return value.map(render).join("");
    return value === null || value === undefined ? "" : escapeHtml(String(value));
  };
  return new Markup(strings.reduce((out, text, index) => out + render(values[index - 1]) + text));
}

/** A link when `href` is an http(s) URL (uploads name run URLs freely), else the text alone. */
export function link(href: string | null, text: string | Markup): Markup {
  const safe = href !== null && URL.canParse(href) && /^https?:$/.test(new URL(href).protocol);
  return safe ? html`<a href="${href}" rel="noreferrer">${text}</a>` : html`${text}`;
}

export const time = (epochMs: number | string) => {
  const iso = new Date(epochMs).toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace("T", " ")} UTC</time>`;
};

export const percent = (fraction: number) => `${(fraction * 100).toFixed(1)}%`;

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
input, select, button { font: inherit; padding: 0.3rem; }
input[type=password], input[type=url] { min-width: 24rem; }
#triage form { margin: 0.5rem 0; }
.error { color: #cf222e; } .notice { color: #1a7f37; }
`;

/** A section with a table of `rows` under `headings`, or the sentence `empty` when there are no rows. */
export function tableSection(
  title: string | Markup,
  headings: string[],
  rows: Markup[],
  empty: string,
): Markup {
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

/** A page; `style` adds rules of its own to the shared stylesheet, `script` loads a script of this service. */
export function page(
  title: string,
  body: Markup,
  options: { reload?: boolean; style?: string; script?: string } = {},
): string {
  const reload = options.reload ? html`<meta http-equiv="refresh" content="0" />` : "";
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        ${reload}
        <title>${title} · Switchyard</title>
        ${options.script === undefined ? "" : html`<script src="${options.script}" defer></script>`}
        <style>
          ${new Markup(stylesheet + (options.style ?? ""))}
        </style>
      </head>
      <body>
        <main>${body}</main>
      </body>
    </html> `.text;
}
