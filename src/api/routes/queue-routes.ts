// The /v1 endpoints of queues: createQueue, getQueue, listQueues, updateQueue and deleteQueue
// (docs/api.md#merge-queue-endpoints, docs/queue.md#queue-states).
import { randomBytes } from "node:crypto";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { DEFAULT_QUEUE_SETTINGS, type QueueEvent, type QueueSettings } from "../../queue/index.ts";
import { changeQueue, judgeSettingsByRules } from "../../queue-commands/queue-updates.ts";
import { queueView } from "../../presentation/queue-views.ts";
import { principalOf } from "../auth.ts";
import type { EdgeDependencies } from "../../http/dependencies.ts";
import { errorResponses } from "../openapi.ts";
import { conflict } from "../../http/problem.ts";
import { queueNotFound, resolveQueue, resolveQueueVersion } from "../queue-access.ts";
import { sendQueueAnswer } from "../queue-read-cache.ts";
import { knownRepository, resolveRepository } from "../repo-access.ts";
import {
  CreateQueueRequest,
  Empty,
  ListQueuesRequest,
  ListQueuesResponse,
  QueueRecord,
  QueueRequest,
  UpdateQueueRequest,
} from "../schemas.ts";

const settingNames = Object.keys(DEFAULT_QUEUE_SETTINGS) as (keyof QueueSettings)[];

/** The settings a request names; required statuses are de-duplicated. */
function settingsIn(body: Partial<Record<keyof QueueSettings, unknown>>): Partial<QueueSettings> {
  const settings: Record<string, unknown> = {};
  for (const name of settingNames) {
    if (body[name] !== undefined) settings[name] = body[name];
  }
  if (Array.isArray(body.requiredStatuses)) settings.requiredStatuses = [...new Set(body.requiredStatuses)];
  return settings as Partial<QueueSettings>;
}

/** Short, so that test branch names (`mq/main/<queue id>-<run>`) stay readable. */
const newQueueId = () => randomBytes(6).toString("hex");

/** A queue's life: created for a branch, deleted once empty. */
function registerQueueLifeRoutes(api: FastifyInstance, deps: EdgeDependencies): void {
  api.post<{ Body: CreateQueueRequest }>(
    "/createQueue",
    {
      schema: {
        operationId: "createQueue",
        summary: "Create a merge queue for a branch",
        body: CreateQueueRequest,
        response: { 200: Type.Ref(QueueRecord), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { repo, targetBranch } = request.body;
      const repository = await resolveRepository(deps, principalOf(request), repo);
      const conflictDetail = `${repository.owner}/${repository.name} already has a merge queue for branch ${targetBranch}`;
      if ((await deps.queueRecords.findQueue(repository.id, targetBranch)) !== undefined) {
        throw conflict("queue_exists", conflictDetail);
      }
      // A queue may come before its branch (a release branch created later): it then waits for it.
      const head = await deps.github.branchHead(repository, targetBranch);
      const settings = { ...DEFAULT_QUEUE_SETTINGS, ...settingsIn(request.body) };
      const verdict = await judgeSettingsByRules(deps.github, repository, targetBranch, settings, undefined);
      if ("code" in verdict) throw conflict(verdict.code, verdict.detail);
      const state = await deps.queues.createQueue({
        queueId: newQueueId(),
        repositoryId: repository.id,
        branch: targetBranch,
        targetHeadSha: head,
        settings,
      });
      if (state === undefined) throw conflict("queue_exists", conflictDetail);
      const paused: QueueEvent[] =
        verdict.pauseFor === null ? [] : [{ type: "queue_updated", settings: {}, status: "paused" }];
      const told = await deps.queues.dispatch(state.queueId, [...verdict.events, ...paused]);
      return queueView(told ?? state);
    },
  );

  api.post<{ Body: QueueRequest }>(
    "/deleteQueue",
    {
      schema: {
        operationId: "deleteQueue",
        summary: "Delete a queue that holds no PR",
        body: QueueRequest,
        response: { 200: Type.Ref(Empty), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { queue } = await resolveQueue(deps, principalOf(request), request.body);
      if (!(await deps.queues.deleteQueueIfEmpty(queue.id))) {
        throw conflict(
          "queue_not_empty",
          `the queue for ${queue.branch} still holds PRs: cancel them or let them merge before deleting it`,
        );
      }
      return {};
    },
  );
}

/** What the queues are: one with its PRs, or a repository's, by branch. */
function registerQueueReadRoutes(api: FastifyInstance, deps: EdgeDependencies): void {
  api.post<{ Body: QueueRequest }>(
    "/getQueue",
    {
      schema: {
        operationId: "getQueue",
        summary: "Read a queue, with its PRs in queue order",
        body: QueueRequest,
        response: { 200: Type.Ref(QueueRecord), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const access = await resolveQueueVersion(deps, principalOf(request), request.body);
      return sendQueueAnswer(reply, deps, access, "getQueue", queueView);
    },
  );

  api.post<{ Body: ListQueuesRequest }>(
    "/listQueues",
    {
      schema: {
        operationId: "listQueues",
        summary: "List a repository's queues, by branch, with their settings and how many PRs each holds",
        body: ListQueuesRequest,
        response: { 200: ListQueuesResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const repository = await knownRepository(deps, principalOf(request), request.body.repo);
      const rows = await deps.queueRecords.repositoryQueues(repository.id);
      const states = await Promise.all(rows.map((row) => deps.queues.read(row.id)));
      return {
        queues: states.flatMap((state) => {
          if (state === undefined) return [];
          const { enqueuedPullRequests, ...queue } = queueView(state);
          return [{ ...queue, depth: enqueuedPullRequests.length }];
        }),
      };
    },
  );
}

/** A queue's settings and state (running, paused, draining), through the queue command (queue-updates.ts). */
function registerQueueUpdateRoutes(api: FastifyInstance, deps: EdgeDependencies): void {
  api.post<{ Body: UpdateQueueRequest }>(
    "/updateQueue",
    {
      schema: {
        operationId: "updateQueue",
        summary: "Change a queue's settings or state (running, paused, draining)",
        body: UpdateQueueRequest,
        response: { 200: Type.Ref(QueueRecord), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { state: status, deleteRequiredStatuses } = request.body;
      const { repository, queue } = await resolveQueue(deps, principalOf(request), request.body);
      const settings = {
        ...settingsIn(request.body),
        ...(deleteRequiredStatuses === true ? { requiredStatuses: null } : {}),
      };
      const current = await deps.queues.read(queue.id);
      if (current === undefined) throw queueNotFound(repository, queue.branch);
      const answer = await changeQueue(deps.github, {
        queue: { repo: repository, state: current },
        settings,
        status,
      });
      if (answer.refused !== undefined) throw conflict(answer.refused.code, answer.refused.detail);
      const updated = await deps.queues.dispatch(queue.id, answer.events);
      if (updated === undefined) throw queueNotFound(repository, queue.branch);
      return queueView(updated);
    },
  );
}

export function registerQueueRoutes(api: FastifyInstance, deps: EdgeDependencies): void {
  registerQueueLifeRoutes(api, deps);
  registerQueueReadRoutes(api, deps);
  registerQueueUpdateRoutes(api, deps);
}
