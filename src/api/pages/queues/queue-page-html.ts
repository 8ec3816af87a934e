// The HTML of one queue's page. Each queued PR has an anchor (#pr-<number>) the PR comment and commit status link
// to; its run is drawn as a train of boxes: the target's commit, the PRs ahead it is tested on, then its batch.
import { html, link, type Markup, page, tableSection, time } from "../html.ts";
import type { DepartedPullRequest } from "../../../store/queue-history.ts";
import type { QueuedPullRequestView, QueuePageView, RunView } from "./queue-page.ts";
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

function queuedRow(pr: QueuedPullRequestView, now: number): Markup {
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
  </tr>`;
}

function departedRow(pr: DepartedPullRequest & { url: string }): Markup {
  const proof =
    pr.state === "failed" && pr.testRunId !== null
      ? html`<br />run <span class="mono">${pr.testRunId}</span>`
      : "";
  return html`<tr>
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

export function queuePage(view: QueuePageView, root: string): string {
  const settings = view.settings.map(
    ([name, value]) =>
      html`<dt>${name}</dt>
        <dd class="mono">${value}</dd>`,
  );
  return page(
    `${view.branch} queue of ${view.repositoryName}`,
    html`<p class="muted">
        <a href="${root}${view.repositoryQueuesPath.slice(1)}">All queues of ${view.repositoryName}</a>
      </p>
      <h1>Merge queue of <span class="mono">${view.branch}</span></h1>
      <p>
        State: <strong id="queue-state">${view.state.replace("_", " ")}</strong> · ${view.pullRequests.length}
        queued
      </p>
      <section id="queued">
        ${tableSection(
          "In the queue",
          ["#", "Pull request", "State", "Priority", "Waiting", "Why it is here", "Its run"],
          view.pullRequests.map((pr) => queuedRow(pr, view.now)),
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
      <section id="settings">
        <h2>Settings</h2>
        <dl>${settings}</dl>
      </section>`,
    { style: queueStyle },
  );
}
