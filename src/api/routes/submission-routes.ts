// The /v1 endpoints about a queue's PRs (docs/api.md#merge-queue-endpoints): submitPullRequest,
// cancelPullRequest, restartTestsOnPullRequest and setImpactedTargets, which ask the queue's commands
// (src/queue-commands/), and getSubmittedPullRequest and listPullRequests, which read its records.
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { parsePriority, type QueueState } from "../../queue/index.ts";
import { pullRequestView } from "../../presentation/queue-views.ts";
import { setImpactedTargets } from "../../queue-commands/impacted-target-upload.ts";
import {
  cancelPullRequest,
  type NotQueued,
  restartPullRequest,
} from "../../queue-commands/pull-request-commands.ts";
import { submitPullRequest } from "../../queue-commands/submission.ts";
import type { Targets } from "../../ports/impacted-target-storage.ts";
import { principalOf } from "../auth.ts";
import { decodeCursor, encodeCursor } from "../cursor.ts";
import type { EdgeDependencies } from "../../http/dependencies.ts";
import { errorResponses } from "../openapi.ts";
import { conflict, notFound } from "../../http/problem.ts";
import {
  type QueueAccess,
  type QueueVersionAccess,
  resolveQueue,
  resolveQueueVersion,
} from "../queue-access.ts";
import { sendQueueAnswer } from "../queue-read-cache.ts";
import { resolveRepository } from "../repo-access.ts";
import {
  ImpactedTargetsResponse,
  ListPullRequestsRequest,
  PullRequestList,
  PullRequestRecord,
  PullRequestRequest,
  SetImpactedTargetsRequest,
  SubmitPullRequestRequest,
} from "../schemas.ts";

const repoName = (access: QueueVersionAccess) => `${access.repository.owner}/${access.repository.name}`;
const prResponses = { 200: Type.Ref(PullRequestRecord), ...errorResponses(400, 401, 403, 404, 409) };

function notSubmitted(access: QueueVersionAccess, prNumber: number) {
  return notFound(
    "pull_request_not_submitted",
    `#${prNumber} was never submitted to the ${access.queue.branch} queue of ${repoName(access)}`,
  );
}

/** The PR record after a step; the PR is in the state it was just given. */
function recordOf(state: QueueState | undefined, access: QueueAccess, prNumber: number) {
  const view = state === undefined ? null : pullRequestView(state, prNumber);
  if (view === null) throw notSubmitted(access, prNumber);
  return view;
}

/** The record of the PR's latest submission: from the queue, or from history once the queue let go of it. */
async function currentRecord(
  deps: EdgeDependencies,
  access: QueueVersionAccess,
  state: QueueState,
  prNumber: number,
) {
  return (
    pullRequestView(state, prNumber) ??
    (await deps.queueRecords.latestSubmissionRecord(access.queue.id, prNumber))
  );
}

/** A cancel or restart of a PR that is not queued, as the API says it. */
function notQueuedProblem(access: QueueVersionAccess, prNumber: number, refusal: NotQueued, instead: string) {
  if (refusal.code === "pull_request_not_submitted") return notSubmitted(access, prNumber);
  return conflict("pull_request_finished", `#${prNumber} already ${refusal.state}; ${instead}`);
}

/** The commands about one PR: submit it (again), cancel it, test it again. */
function registerSubmissionRoutes(api: FastifyInstance, deps: EdgeDependencies): void {
  api.post<{ Body: SubmitPullRequestRequest }>(
    "/submitPullRequest",
    {
      schema: {
        operationId: "submitPullRequest",
        summary: "Submit a PR to the queue (again: change its priority)",
        body: SubmitPullRequestRequest,
        response: prResponses,
      },
    },
    async (request) => {
      // A submission reads the PR from GitHub anyway: an installation unknown here is looked up there.
      const access = await resolveQueue(deps, principalOf(request), request.body, resolveRepository);
      const number = Number(request.body.pr.number);
      const pr = await deps.github.pullRequest(access.repository, number);
      if (pr === null)
        throw notFound("pull_request_not_found", `${repoName(access)} has no pull request #${number}`);
      const { priority, noBatch } = request.body;
      const answer = await submitPullRequest(deps.submissionReads, {
        queue: { id: access.queue.id, repo: access.repository, state: access.state },
        pr,
        priority: priority === undefined || priority === null ? null : parsePriority(priority),
        noBatch: noBatch ?? false,
      });
      if (answer.refused === undefined) {
        return recordOf(await deps.queues.dispatch(access.queue.id, answer.events), access, number);
      }
      switch (answer.refused.code) {
        case "pull_request_closed":
          throw conflict(
            "pull_request_closed",
            `#${number} is ${answer.refused.merged ? "merged" : "closed"}; only open PRs can be queued`,
          );
        case "queue_draining":
          throw conflict(
            "queue_draining",
            `the ${access.queue.branch} queue is draining and takes no new PRs`,
          );
      }
    },
  );

  api.post<{ Body: PullRequestRequest }>(
    "/cancelPullRequest",
    {
      schema: {
        operationId: "cancelPullRequest",
        summary: "Take a PR out of the queue",
        body: PullRequestRequest,
        response: prResponses,
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const access = await resolveQueue(deps, principal, request.body);
      const number = Number(request.body.pr.number);
      const current = await currentRecord(deps, access, access.state, number);
      const answer = cancelPullRequest({
        state: access.state,
        prNumber: number,
        departed: current?.state,
        by: `API token ${principal.tokenId} of ${principal.organizationSlug}`,
      });
      if (answer.refused === undefined) {
        return recordOf(await deps.queues.dispatch(access.queue.id, answer.events), access, number);
      }
      // Cancelling a cancelled PR changes nothing, and says so as a success.
      if (current !== undefined && current.state === "cancelled") return current;
      throw notQueuedProblem(access, number, answer.refused, "there is nothing to cancel");
    },
  );

  api.post<{ Body: PullRequestRequest }>(
    "/restartTestsOnPullRequest",
    {
      schema: {
        operationId: "restartTestsOnPullRequest",
        summary: "Test a queued PR again",
        body: PullRequestRequest,
        response: prResponses,
      },
    },
    async (request) => {
      const access = await resolveQueue(deps, principalOf(request), request.body);
      const number = Number(request.body.pr.number);
      const current = await currentRecord(deps, access, access.state, number);
      const answer = restartPullRequest({ state: access.state, prNumber: number, departed: current?.state });
      if (answer.refused !== undefined) {
        throw notQueuedProblem(access, number, answer.refused, "submit it again instead");
      }
      return recordOf(await deps.queues.dispatch(access.queue.id, answer.events), access, number);
    },
  );
}

function registerImpactedTargetRoutes(api: FastifyInstance, deps: EdgeDependencies): void {
  api.post<{ Body: SetImpactedTargetsRequest }>(
    "/setImpactedTargets",
    {
      // docs/queue.md#impacted-targets: a list of targets too large to send is better said as "ALL".
      config: {
        oversizedBodyHint:
          'send "impactedTargets": "ALL" instead of the list, which marks the PR as impacting every target',
      },
      schema: {
        operationId: "setImpactedTargets",
        summary: "Set the build/test targets a PR's head commit impacts (parallel queues)",
        body: SetImpactedTargetsRequest,
        response: { 200: ImpactedTargetsResponse, ...errorResponses(400, 401, 403, 404, 413) },
      },
    },
    async (request) => {
      const access = await resolveQueue(deps, principalOf(request), request.body);
      const number = Number(request.body.pr.number);
      const headSha = request.body.pr.sha.toLowerCase();
      const targets: Targets =
        request.body.impactedTargets === "ALL" ? "ALL" : [...new Set(request.body.impactedTargets)];
      const upload = {
        queue: { id: access.queue.id, state: access.state },
        prNumber: number,
        headSha,
        targets,
      };
      const { events } = await setImpactedTargets(deps.impactedTargets, upload, deps.clock());
      if (events.length > 0) await deps.queues.dispatch(access.queue.id, events);
      return {
        prNumber: number,
        prSha: headSha,
        impactedTargets: targets === "ALL" ? "ALL" : targets.length,
      };
    },
  );
}

/** What the queue holds and held: a PR's latest submission, and every submission, newest first. */
function registerSubmissionReadRoutes(api: FastifyInstance, deps: EdgeDependencies): void {
  api.post<{ Body: PullRequestRequest }>(
    "/getSubmittedPullRequest",
    {
      schema: {
        operationId: "getSubmittedPullRequest",
        summary: "Read a PR's latest submission",
        body: PullRequestRequest,
        response: prResponses,
      },
    },
    async (request, reply) => {
      const access = await resolveQueueVersion(deps, principalOf(request), request.body);
      const number = Number(request.body.pr.number);
      return sendQueueAnswer(reply, deps, access, `getSubmittedPullRequest ${number}`, async (state) => {
        const current = await currentRecord(deps, access, state, number);
        if (current === undefined) throw notSubmitted(access, number);
        return current;
      });
    },
  );

  api.post<{ Body: ListPullRequestsRequest }>(
    "/listPullRequests",
    {
      schema: {
        operationId: "listPullRequests",
        summary: "List every submission to a queue, newest first",
        body: ListPullRequestsRequest,
        response: { 200: Type.Ref(PullRequestList), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const access = await resolveQueueVersion(deps, principalOf(request), request.body);
      const { queue } = access;
      const { state, since, cursor, take = 50 } = request.body;
      // Submissions are saved with the queue's state: a page stays right as long as the state does.
      const pageKey = JSON.stringify(["listPullRequests", state, since, cursor, take]);
      return sendQueueAnswer(reply, deps, access, pageKey, async () => {
        const page = await deps.queueRecords.listSubmissions(queue.id, {
          state,
          since: since === undefined ? undefined : Date.parse(since),
          after: cursor === undefined || cursor === "" ? undefined : decodeCursor(cursor, queue.id),
          take,
        });
        return {
          pullRequests: page.records,
          nextCursor: page.last === null ? null : encodeCursor(page.last, queue.id),
        };
      });
    },
  );
}

export function registerPullRequestRoutes(api: FastifyInstance, deps: EdgeDependencies): void {
  registerSubmissionRoutes(api, deps);
  registerImpactedTargetRoutes(api, deps);
  registerSubmissionReadRoutes(api, deps);
}
