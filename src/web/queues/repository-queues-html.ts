// The HTML of a repository's list of merge queues: one row per branch, linking to the queue's page.
import { html, link, type Markup, page, tableSection } from "../html.ts";
import { queueStyle } from "./queue-style.ts";
import { durationInWords } from "./queue-words.ts";
import type { QueueSummary, RepositoryQueuesView } from "./repository-queues-view.ts";

const optionalDuration = (ms: number | null) => (ms === null ? "—" : durationInWords(ms));

function queueRow(queue: QueueSummary, root: string): Markup {
  return html`<tr>
    <td><a href="${root}${queue.path.slice(1)}" class="mono">${queue.branch}</a></td>
    <td><span class="badge queue-${queue.state}">${queue.state.replace("_", " ")}</span></td>
    <td>${queue.mode}</td>
    <td>${queue.depth}</td>
    <td>${queue.runsInFlight}</td>
    <td>${queue.mergedLastHour}</td>
    <td>${queue.failedLastHour}</td>
    <td>${optionalDuration(queue.timeToMergeP50)} / ${optionalDuration(queue.timeToMergeP95)}</td>
  </tr>`;
}

export function repositoryQueuesPage(view: RepositoryQueuesView, root: string): string {
  const headings = [
    "Branch",
    "State",
    "Mode",
    "Depth",
    "Runs in flight",
    "Merged, last hour",
    "Failed, last hour",
    "Time to merge today, p50 / p95",
  ];
  return page(
    `Merge queues of ${view.repositoryName}`,
    html`<p class="muted">
        ${link(view.repositoryUrl, `${view.repositoryName} on GitHub`)} ·
        <a href="${root}${view.testsPath}">Test health</a>
      </p>
      <h1>Merge queues of ${view.repositoryName}</h1>
      ${tableSection(
        "Queues",
        headings,
        view.queues.map((queue) => queueRow(queue, root)),
        "This repository has no merge queue.",
      )}`,
    { style: queueStyle },
  );
}
