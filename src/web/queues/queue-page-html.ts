// The HTML of one queue's page. Each queued PR has an anchor (#pr-<number>) the PR comment and commit status link
// to; its run is drawn as a train of boxes: the target's commit, the PRs ahead it is tested on, then its batch.
import { html, link, type Markup, page, tableSection, time } from "../html.ts";
import type { DepartedView, QueuedPullRequestView, QueuePageView, RunView } from "./queue-page-view.ts";
import { barChart } from "./chart-svg.ts";
import { liveScriptPath } from "./live-script.ts";
import type { HourlySeries } from "./queue-charts.ts";
import { queueStyle } from "./queue-style.ts";
import { durationInWords, reasonInWords } from "./queue-words.ts";

function train(run: RunView, prNumber: number): Markup {
  const box = (number: number, kind: string) =>
    html`<li class="car ${number === prNumber ? "car-this" : kind}">#${number}</li>`;
  return html`<ol class="train" aria-label="What run ${run.id} tests">
    <li class="car car-target" title="${run.basisSha}">target ${run.basisSha.slice(0, 7)}</li>
    ${run.dependsOn.map((number) => box(number, "car-ahead"))}
    ${run.batch.map((number) => box(number, "car-batch"))}
  </ol>`;
}

function runCell(run: RunView | null, prNumber: number): Markup {
  if (run === null) return html`<span class="muted">not tested yet</span>`;
  const checks = run.checks.map(
    (check) =>
      html`<li><span class="check-${check.state}">${check.state}</span> ${link(check.url, check.name)}</li>`,
  );
  return html`<span class="mono">${run.id}</span>
    <span class="run-${run.status}">${run.status.replace("_", " ")}</span> ${train(run, prNumber)}
    ${
      checks.length === 0
        ? html`<span class="muted">no checks reported yet</span>`
        : html`<ul class="checks">
            ${checks}
          </ul>`
    }`;
}

function queuedRow(pr: QueuedPullRequestView, now: number, controls: Controls): Markup {
  return html`<tr id="pr-${pr.number}">
    <td>${pr.position}</td>
    <td>${link(pr.url, `#${pr.number}`)} ${pr.title}<br /><span class="muted">by ${pr.author}</span></td>
    <td><span class="pr-state pr-${pr.state}">${pr.state.replace("_", " ")}</span></td>
    <td>${pr.priority}</td>
    <td>
      ${durationInWords(now - pr.submittedAt)}<br /><span class="muted">since ${time(pr.submittedAt)}</span>
    </td>
    <td>
      ${reasonInWords(pr.stateReason)}${pr.stateDetail === "" ? "" : html`<br /><span class="muted">${pr.stateDetail}</span>`}
    </td>
    <td>${runCell(pr.run, pr.number)}</td>
    <td>${prControls(pr, controls)}</td>
  </tr>`;
}

function departedRow(pr: DepartedView): Markup {
  const proof =
    pr.state === "failed" && pr.testRunId !== null
      ? html`<br />run <span class="mono">${pr.testRunId}</span>`
      : "";
  return html`<tr ${pr.anchored ? html`id="pr-${pr.prNumber}"` : ""}>
    <td>${link(pr.url, `#${pr.prNumber}`)} ${pr.title}<br /><span class="muted">by ${pr.author}</span></td>
    <td><span class="pr-state pr-${pr.state}">${pr.state}</span></td>
    <td>
      ${time(pr.leftAt)}<br /><span class="muted">after ${durationInWords(pr.leftAt - pr.submittedAt)}</span>
    </td>
    <td>
      ${reasonInWords(pr.stateReason)}${pr.stateDetail === "" ? "" : html`<br /><span class="muted">${pr.stateDetail}</span>`}${proof}
    </td>
  </tr>`;
}

function chartsSection(series: HourlySeries): Markup {
  const count = (value: number) => String(Math.round(value));
  const charts = [
    barChart({ id: "chart-depth", title: "Depth", hours: series.hours, values: series.depth, format: count }),
    barChart({
      id: "chart-merged",
      title: "Merged per hour",
      hours: series.hours,
      values: series.merged,
      format: count,
    }),
    barChart({
      id: "chart-time-to-merge",
      title: "Time to merge (median)",
      hours: series.hours,
      values: series.timeToMergeMs,
      format: durationInWords,
    }),
    barChart({
      id: "chart-runs-per-merge",
      title: "CI runs per merged PR",
      hours: series.hours,
      values: series.runsPerMerge,
      format: (value) => value.toFixed(1),
    }),
  ];
  return html`<section id="charts">
    <h2>The last 24 hours</h2>
    <div class="charts">${charts}</div>
  </section>`;
}

/** What a visitor may do on the page: every form carries the session's anti-forgery token. */
export interface Controls {
  formToken: string;
}

function actionButton(controls: Controls, action: string, label: string, pr?: number): Markup {
  return html`<form method="post" class="control">
    <input type="hidden" name="form_token" value="${controls.formToken}" />
    <input type="hidden" name="action" value="${action}" />
    ${pr === undefined ? "" : html`<input type="hidden" name="pr" value="${pr}" />`}
    <button type="submit">${label}</button>
  </form>`;
}

function queueControls(view: QueuePageView, controls: Controls): Markup {
  const buttons = [
    view.state === "paused"
      ? actionButton(controls, "resume", "Resume the queue")
      : actionButton(controls, "pause", "Pause the queue"),
    view.state === "draining"
      ? actionButton(controls, "resume", "Stop draining")
      : actionButton(controls, "drain", "Drain the queue"),
  ];
  return html`<div class="controls">${buttons}</div>`;
}

function prControls(pr: QueuedPullRequestView, controls: Controls): Markup {
  const started = ["testing", "tests_passed", "pending_failure"].includes(pr.state);
  return html`<div class="controls">
    ${actionButton(controls, "cancel", `Cancel #${pr.number}`, pr.number)}
    ${started ? actionButton(controls, "restart", `Restart #${pr.number}`, pr.number) : ""}
    ${pr.priority === "urgent" ? "" : actionButton(controls, "urgent", `Make #${pr.number} urgent`, pr.number)}
  </div>`;
}

/** The part of the page that changes with the queue, which the page's script replaces as it changes. */
export function queueLivePart(view: QueuePageView, controls: Controls): Markup {
  const settings = view.settings.map(
    ([name, value]) =>
      html`<dt>${name}</dt>
        <dd class="mono">${value}</dd>`,
  );
  return html`<p>
      State: <strong id="queue-state">${view.state.replace("_", " ")}</strong> · ${view.pullRequests.length}
      queued · as of ${time(view.now)}
    </p>
    ${queueControls(view, controls)}
    <section id="queued">
      ${tableSection(
        "In the queue",
        ["#", "Pull request", "State", "Priority", "Waiting", "Why it is here", "Its run", ""],
        view.pullRequests.map((pr) => queuedRow(pr, view.now, controls)),
        "No PR is in the queue.",
      )}
    </section>
    <section id="departed">
      ${tableSection(
        "Left the queue in the last day",
        ["Pull request", "Outcome", "Left", "Why"],
        view.departed.map(departedRow),
        "No PR left the queue in the last day.",
      )}
    </section>
    ${chartsSection(view.charts)}
    <section id="settings">
      <h2>Settings</h2>
      <dl>${settings}</dl>
    </section>
    ${branchRulesSection(view)}`;
}

/** What GitHub enforces on the branch, and what the queue does about each rule. */
function branchRulesSection({ branchRules }: QueuePageView): Markup {
  if (branchRules === null) return html``;
  const rules = branchRules.rules.map(
    (rule) =>
      html`<dt><span class="mono">${rule.type}</span> <span class="muted">(${rule.source})</span></dt>
        <dd>${rule.blocksLanding ? html`<strong>Nothing can land:</strong> ` : ""}${rule.honoured}</dd>`,
  );
  const last = branchRules.lastRefusal;
  const refused =
    last === null
      ? ""
      : html`<p>
          GitHub refused ${branchRules.refusals} merge${branchRules.refusals === 1 ? "" : "s"} for a rule; the
          last, ${time(Date.parse(last.at))}: <q>${last.message}</q>
        </p>`;
  return html`<section id="branch-rules">
    <h2>Branch rules on GitHub</h2>
    ${rules.length === 0 ? html`<p>No rule the queue must honour.</p>` : html`<dl>${rules}</dl>`} ${refused}
    <p class="muted">Read ${time(Date.parse(branchRules.readAt))}.</p>
  </section>`;
}

export function queuePage(
  view: QueuePageView,
  root: string,
  live: { controls: Controls; version: string; notice?: string },
): string {
  const notice = live.notice === undefined ? "" : html`<p class="notice" role="status">${live.notice}</p>`;
  return page(
    `${view.branch} queue of ${view.repositoryName}`,
    html`<p class="muted">
        <a href="${root}${view.repositoryQueuesPath.slice(1)}">All queues of ${view.repositoryName}</a>
      </p>
      <h1>Merge queue of <span class="mono">${view.branch}</span></h1>
      ${notice}
      <div id="live" data-version="${live.version}">${queueLivePart(view, live.controls)}</div>`,
    { style: queueStyle, script: `${root}queues${liveScriptPath}` },
  );
}
