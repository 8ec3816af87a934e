// submitPullRequest, cancelPullRequest, restartTestsOnPullRequest, setImpactedTargets,
// getSubmittedPullRequest and listPullRequests (docs/api.md#merge-queue-endpoints, docs/queue.md#pr-states, #order-and-priority).
import { randomUUID } from "node:crypto";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import {
  acceptsNewSubmissions,
  isTerminal,
  parsePriority,
  type QueueEvent,
  type QueueState,
} from "../../queue/index.ts";
import { pullRequestView } from "../../presentation/queue-views.ts";
import { awaitedBranchEvents } from "../../runner/awaited-branch.ts";
import { findImpactedTargets, saveImpactedTargets } from "../../store/impacted-targets.ts";
import { latestSubmissionRecord, listSubmissions } from "../../store/submission-records.ts";
import { principalOf } from "../auth.ts";
import { decodeCursor, encodeCursor } from "../cursor.ts";
import type { ApiDependencies } from "../../http/dependencies.ts";
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
  deps: ApiDependencies,
  access: QueueVersionAccess,
  state: QueueState,
  prNumber: number,
) {
  const view =
    pullRequestView(state, prNumber) ??
    (await latestSubmissionRecord(deps.store.db, access.queue.id, prNumber));
  if (view === undefined) throw notSubmitted(access, prNumber);
  return view;
}

export function registerPullRequestRoutes(api: FastifyInstance, deps: ApiDependencies): void {
  const prResponses = { 200: Type.Ref(PullRequestRecord), ...errorResponses(400, 401, 403, 404, 409) };

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
      if (!pr.open)
        throw conflict(
          "pull_request_closed",
          `#${number} is ${pr.merged ? "merged" : "closed"}; only open PRs can be queued`,
        );
      const queued = access.state.prs[number];
      const alreadyQueued = queued !== undefined && !isTerminal(queued.state);
      if (!alreadyQueued && !acceptsNewSubmissions(access.state)) {
        throw conflict("queue_draining", `the ${access.queue.branch} queue is draining and takes no new PRs`);
      }
      const { priority } = request.body;
      const events: QueueEvent[] = [
        ...(await awaitedBranchEvents(access.state, () =>
          deps.github.branchHead(access.repository, access.queue.branch),
        )),
        {
          type: "pr_submitted",
          submissionId: randomUUID(),
          pr,
          priority: priority === undefined || priority === null ? null : parsePriority(priority),
          noBatch: request.body.noBatch ?? false,
        },
      ];
      const targets = await findImpactedTargets(deps.store.db, access.queue.id, number, pr.headSha);
      if (targets !== undefined)
        events.push({ type: "impacted_targets_set", prNumber: number, headSha: pr.headSha, targets });
      return recordOf(await deps.engine.dispatch(access.queue.id, events), access, number);
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
      if (current.state === "merged" || current.state === "failed") {
        throw conflict(
          "pull_request_finished",
          `#${number} already ${current.state}; there is nothing to cancel`,
        );
      }
      if (current.state === "cancelled") return current;
      const state = await deps.engine.dispatch(access.queue.id, [
        {
          type: "cancel_requested",
          prNumber: number,
          reason: "cancelled_by_user",
          by: `API token ${principal.tokenId} of ${principal.organizationSlug}`,
        },
      ]);
      return recordOf(state, access, number);
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
      if (!current.isCurrentlySubmittedToQueue) {
        throw conflict(
          "pull_request_finished",
          `#${number} already ${current.state}; submit it again instead`,
        );
      }
      const state = await deps.engine.dispatch(access.queue.id, [
        { type: "restart_requested", prNumber: number },
      ]);
      return recordOf(state, access, number);
    },
  );

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
      const targets =
        request.body.impactedTargets === "ALL" ? "ALL" : [...new Set(request.body.impactedTargets)];
      await saveImpactedTargets(
        deps.store.db,
        { queueId: access.queue.id, prNumber: number, headSha, targets },
        deps.clock(),
      );
      if (access.state.prs[number] !== undefined) {
        await deps.engine.dispatch(access.queue.id, [
          { type: "impacted_targets_set", prNumber: number, headSha, targets },
        ]);
      }
      return {
        prNumber: number,
        prSha: headSha,
        impactedTargets: targets === "ALL" ? "ALL" : targets.length,
      };
    },
  );

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
      return sendQueueAnswer(reply, deps, access, `getSubmittedPullRequest ${number}`, (state) =>
        currentRecord(deps, access, state, number),
      );
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
        const page = await listSubmissions(deps.store.db, queue.id, {
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
