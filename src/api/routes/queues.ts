// createQueue, getQueue, updateQueue, deleteQueue (contract 4, 5.8).
import type { FastifyInstance } from "fastify";
import { newId } from "../../store/ids.ts";
import {
  deleteQueueIfEmpty,
  findQueue,
  insertQueue,
  type Queue,
  type QueueSettings,
  updateQueue,
} from "../../store/queues.ts";
import type { Repository } from "../../store/repositories.ts";
import { listEnqueued } from "../../store/submissions.ts";
import { principalOf } from "../auth.ts";
import type { ApiDependencies } from "../dependencies.ts";
import { conflict, notFound } from "../problem.ts";
import { queueRecord } from "../records.ts";
import { resolveRepository } from "../repo-access.ts";
import {
  CreateQueueRequest,
  Empty,
  QueueRecord,
  QueueRequest,
  type RepoRef,
  UpdateQueueRequest,
} from "../schemas.ts";
import { errorResponses } from "../openapi.ts";

/** contract 4: the settings of a new queue, before the request's own. */
export const defaultQueueSettings: QueueSettings = {
  mode: "single",
  concurrency: 1,
  testingTimeoutMinutes: 300,
  canOptimisticallyMerge: false,
  pendingFailureDepth: 0,
  batch: false,
  batchingMaxWaitTimeMinutes: 5,
  batchingMinSize: 4,
  createPrsForTestingBranches: false,
  commentsEnabled: true,
  commandsEnabled: true,
  statusCheckEnabled: true,
  bisectionConcurrency: null,
  requiredStatuses: null,
  directMergeMode: "off",
  optimizationMode: "off",
  mergeMethod: "squash",
};

const settingNames = Object.keys(defaultQueueSettings) as (keyof QueueSettings)[];

function settingsIn(body: Partial<QueueSettings>): Partial<QueueSettings> {
  const settings: Record<string, unknown> = {};
  for (const name of settingNames) {
    if (body[name] !== undefined) settings[name] = body[name];
  }
  if (body.requiredStatuses !== undefined && body.requiredStatuses !== null) {
    settings.requiredStatuses = [...new Set(body.requiredStatuses)];
  }
  return settings as Partial<QueueSettings>;
}

export function registerQueueRoutes(api: FastifyInstance, deps: ApiDependencies): void {
  const queueOf = async (repository: Repository, branch: string, ref: RepoRef): Promise<Queue> => {
    const queue = await findQueue(deps.store.db, repository.id, branch);
    if (queue === undefined) {
      throw notFound(
        "queue_not_found",
        `no merge queue for branch ${branch} in ${ref.host}/${repository.owner}/${repository.name}`,
      );
    }
    return queue;
  };
  const recordOf = async (queue: Queue) => queueRecord(queue, await listEnqueued(deps.store.db, queue.id));

  api.post<{ Body: CreateQueueRequest }>(
    "/createQueue",
    {
      schema: {
        summary: "Create a merge queue for a branch",
        body: CreateQueueRequest,
        response: { 200: QueueRecord, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { repo, targetBranch } = request.body;
      const repository = await resolveRepository(deps, principalOf(request), repo);
      const queue = await insertQueue(
        deps.store.db,
        {
          ...defaultQueueSettings,
          ...settingsIn(request.body),
          id: newId(),
          repositoryId: repository.id,
          branch: targetBranch,
          state: "running",
        },
        deps.clock(),
      );
      if (queue === undefined) {
        throw conflict(
          "queue_exists",
          `${repository.owner}/${repository.name} already has a merge queue for branch ${targetBranch}`,
        );
      }
      return recordOf(queue);
    },
  );

  api.post<{ Body: QueueRequest }>(
    "/getQueue",
    {
      schema: {
        summary: "Read a queue, with its PRs in queue order",
        body: QueueRequest,
        response: { 200: QueueRecord, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { repo, targetBranch } = request.body;
      const repository = await resolveRepository(deps, principalOf(request), repo);
      return recordOf(await queueOf(repository, targetBranch, repo));
    },
  );

  api.post<{ Body: UpdateQueueRequest }>(
    "/updateQueue",
    {
      schema: {
        summary: "Change a queue's settings or state (running, paused, draining)",
        body: UpdateQueueRequest,
        response: { 200: QueueRecord, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { repo, targetBranch, state, deleteRequiredStatuses } = request.body;
      const repository = await resolveRepository(deps, principalOf(request), repo);
      const queue = await queueOf(repository, targetBranch, repo);
      const changes: Partial<QueueSettings> & { state?: Queue["state"] } = settingsIn(request.body);
      if (deleteRequiredStatuses === true) changes.requiredStatuses = null;
      if (state !== undefined) changes.state = state;
      const now = deps.clock();
      await updateQueue(deps.store.db, queue.id, changes, now);
      return recordOf({ ...queue, ...changes, updatedAt: now });
    },
  );

  api.post<{ Body: QueueRequest }>(
    "/deleteQueue",
    {
      schema: {
        summary: "Delete a queue that holds no PR",
        body: QueueRequest,
        response: { 200: Empty, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { repo, targetBranch } = request.body;
      const repository = await resolveRepository(deps, principalOf(request), repo);
      const queue = await queueOf(repository, targetBranch, repo);
      if (!(await deleteQueueIfEmpty(deps.store.db, queue.id))) {
        throw conflict(
          "queue_not_empty",
          `the queue for ${targetBranch} still holds PRs: cancel them or let them merge before deleting it`,
        );
      }
      return {};
    },
  );
}
