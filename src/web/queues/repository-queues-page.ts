// A repository's merge queues at /queues/<host>/<owner>/<name>: per branch its state, mode, depth, runs in flight,
// what merged and failed in the last hour and how long merges took today.
import type { FastifyReply } from "fastify";
import { inProgressRuns } from "../../queue/index.ts";
import { sendPage } from "../page-replies.ts";
import type { PageContext } from "../page-context.ts";
import { queuePath } from "./queue-addresses.ts";
import type { QueuePageRequest } from "./queue-page-request.ts";
import { percentile, queueStateOf } from "./queue-words.ts";
import { repositoryQueuesPage } from "./repository-queues-html.ts";
import type { QueueSummary, RepositoryQueuesView } from "./repository-queues-view.ts";

const HOUR_MS = 3600 * 1000;
const DAY_MS = 24 * HOUR_MS;

export async function repositoryQueuesView(
  deps: PageContext["deps"],
  { repository }: Pick<QueuePageRequest, "repository">,
): Promise<RepositoryQueuesView> {
  const records = deps.queueRecords;
  const now = deps.clock();
  const rows = await records.repositoryQueues(repository.id);
  const ids = rows.map((row) => row.id);
  const [states, lastHour] = await Promise.all([
    Promise.all(ids.map((id) => deps.queues.read(id))),
    records.transitionsByState(ids, ["merged", "failed"], now - HOUR_MS),
  ]);
  const startOfDay = now - (now % DAY_MS);
  const durations = await Promise.all(ids.map((id) => records.mergeDurations(id, startOfDay)));
  const count = (queueId: string, state: string) =>
    Number(lastHour.find((row) => row.queueId === queueId && row.key === state)?.count ?? 0);
  const queues = rows.flatMap((row, index): QueueSummary[] => {
    const state = states[index];
    if (state === undefined) return [];
    const merges = durations[index] ?? [];
    return [
      {
        branch: row.branch,
        path: queuePath({ repository, branch: row.branch }),
        state: queueStateOf(state),
        mode: state.settings.mode,
        depth: state.line.length,
        runsInFlight: inProgressRuns(state).length,
        mergedLastHour: count(row.id, "merged"),
        failedLastHour: count(row.id, "failed"),
        timeToMergeP50: percentile(merges, 0.5),
        timeToMergeP95: percentile(merges, 0.95),
      },
    ];
  });
  const { host, owner, name } = repository;
  return {
    repositoryName: `${owner}/${name}`,
    repositoryUrl: `${deps.config.githubWebUrl}/${owner}/${name}`,
    testsPath: `tests/${[host, owner, name].map(encodeURIComponent).join("/")}`,
    queues,
  };
}

export async function showRepositoryQueues(
  context: PageContext,
  reply: FastifyReply,
  request: QueuePageRequest,
): Promise<FastifyReply> {
  const view = await repositoryQueuesView(context.deps, request);
  return sendPage(reply, 200, repositoryQueuesPage(view, request.root));
}
