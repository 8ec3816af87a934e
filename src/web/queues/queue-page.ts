// One merge queue at /queues/<host>/<owner>/<name>/<branch>: its PRs in queue order, each with why it is where it
// is and the run testing it (what the run tests on top of the target, and its checks), the PRs that left in the
// last day and why, and the queue's settings. Read from the queue core's state and the history projections.
import { branchRulesView } from "../../presentation/branch-rules-view.ts";
import type { FastifyReply, FastifyRequest } from "fastify";
import { priorityNameOf, type PullRequestEntry, type QueueState, type TestRun } from "../../queue/index.ts";
import { queueView } from "../../presentation/queue-views.ts";
import type { DepartedPullRequest, QueueActivity } from "../../ports/queue-records.ts";
import { pullRequestUrl } from "../../urls.ts";
import { notFoundPage, sendPage, sendUnchanged } from "../page-replies.ts";
import type { PageContext } from "../page-context.ts";
import { queuePath } from "./queue-addresses.ts";
import { CHART_HOURS, HOUR_MS, hourlySeries } from "./queue-charts.ts";
import { queueLivePart, queuePage } from "./queue-page-html.ts";
import type { DepartedView, QueuePageView, RunView } from "./queue-page-view.ts";
import type { QueuePageRequest } from "./queue-page-request.ts";
import { changeNotices, queueStateOf } from "./queue-words.ts";

/** How often the times PRs have waited move on the page. */
const WAITING_TIME_STEP_MS = 15_000;
/** The most departures the page lists; a busy queue's day is summarised by its charts. */
export const DEPARTED_LIMIT = 200;

function runView(run: TestRun): RunView {
  const checks = Object.values(run.reports).map((report) => ({
    name: report.name,
    state: report.kind === "status" ? report.state : (report.conclusion ?? report.status),
    url: report.url,
  }));
  return {
    id: run.id,
    status: run.status,
    testBranch: run.testBranch,
    basisSha: run.baseSha,
    dependsOn: [...run.dependsOn],
    batch: run.prs.map((pr) => pr.number),
    checks: checks.sort((a, b) => a.name.localeCompare(b.name)),
  };
}

function settingsOf(state: QueueState): [string, string][] {
  const {
    enqueuedPullRequests: _listed,
    state: _state,
    branch: _branch,
    ...settings
  } = queueView({
    ...state,
    line: [],
  });
  return Object.entries(settings).map(([name, value]) => [
    name,
    value === null ? "not set" : Array.isArray(value) ? value.join(", ") || "none" : String(value),
  ]);
}

/** The departures with their links; the latest of a PR not queued again holds its place on the page. */
function anchoredDepartures(
  state: QueueState,
  departed: readonly DepartedPullRequest[],
  prUrl: (number: number) => string,
): DepartedView[] {
  const placed = new Set(state.line);
  return departed.map((pr) => {
    const anchored = !placed.has(pr.prNumber);
    placed.add(pr.prNumber);
    return { ...pr, url: prUrl(pr.prNumber), anchored };
  });
}

export function queuePageView(
  deps: PageContext["deps"],
  request: QueuePageRequest & { branch: string },
  state: QueueState,
  history: { departed: DepartedPullRequest[]; activity: QueueActivity },
): QueuePageView {
  const { repository } = request;
  const prUrl = (number: number) => pullRequestUrl(deps.config, repository, number);
  const pullRequests = state.line.map((number, index) => {
    const pr = state.prs[number] as PullRequestEntry;
    const run = pr.testRunId === null ? undefined : state.runs[pr.testRunId];
    return {
      position: index + 1,
      number,
      url: prUrl(number),
      title: pr.title,
      author: pr.author,
      state: pr.state,
      priority: priorityNameOf(pr.priorityValue),
      submittedAt: pr.submittedAt,
      stateReason: pr.stateReason,
      stateDetail: pr.stateDetail,
      run: run === undefined ? null : runView(run),
    };
  });
  return {
    repositoryName: `${repository.owner}/${repository.name}`,
    branch: state.targetBranch,
    repositoryQueuesPath: queuePath({ repository, branch: null }),
    state: queueStateOf(state),
    now: deps.clock(),
    pullRequests,
    departed: anchoredDepartures(state, history.departed, prUrl),
    charts: hourlySeries(history.activity, state.line.length, deps.clock()),
    settings: settingsOf(state),
    branchRules: branchRulesView(state),
  };
}

/** The queue a page request names, or undefined when the repository has no such queue. */
export function namedQueue(deps: PageContext["deps"], request: QueuePageRequest & { branch: string }) {
  return deps.queueRecords.findQueue(request.repository.id, request.branch);
}

/**
 * What the page shows changes with every step of the queue (its state's version) and, for the times PRs have
 * waited, with the clock: the page's version names both, so the live part is sent again only when it differs.
 */
async function pageVersion(deps: PageContext["deps"], queueId: string): Promise<string> {
  const version = await deps.queueRecords.queueStateVersion(queueId);
  return `"${version}-${Math.floor(deps.clock() / WAITING_TIME_STEP_MS)}"`;
}

/** Shows the queue's page, or its live part alone (?part=live, for the page's script) when it changed. */
export async function showQueuePage(
  context: PageContext,
  request: FastifyRequest<{ Querystring: Record<string, unknown> }>,
  reply: FastifyReply,
  visible: QueuePageRequest & { branch: string },
): Promise<FastifyReply> {
  const { deps } = context;
  const queue = await namedQueue(deps, visible);
  if (queue === undefined) return notFoundPage(reply, "Queue");
  const version = await pageVersion(deps, queue.id);
  const livePart = request.query.part === "live";
  if (livePart && request.headers["if-none-match"] === version) return sendUnchanged(reply, version);
  const state = await deps.queues.read(queue.id);
  if (state === undefined) return notFoundPage(reply, "Queue");
  const dayAgo = deps.clock() - CHART_HOURS * HOUR_MS;
  const [departed, activity] = await Promise.all([
    deps.queueRecords.departedPullRequests(queue.id, dayAgo, DEPARTED_LIMIT),
    deps.queueRecords.queueActivity(queue.id, dayAgo),
  ]);
  const view = queuePageView(deps, visible, state, { departed, activity });
  const controls = { formToken: visible.visitor.formToken };
  reply.header("etag", version);
  if (livePart) return sendPage(reply, 200, queueLivePart(view, controls).text);
  const changed = request.query.changed;
  const notice =
    typeof changed === "string" && Object.hasOwn(changeNotices, changed) ? changeNotices[changed] : undefined;
  return sendPage(
    reply,
    200,
    queuePage(view, visible.root, { controls, version, ...(notice ? { notice } : {}) }),
    {
      script: true,
    },
  );
}
