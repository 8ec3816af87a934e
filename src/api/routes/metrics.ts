// GET /v1/getMergeQueueMetrics (docs/monitoring.md#merge-queue-metrics): Prometheus text for the token's organization, or
// for one repository of it.
import { Type, type Static } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { expositionContentType } from "../../metrics/exposition.ts";
import { principalOf } from "../auth.ts";
import type { EdgeDependencies } from "../../http/dependencies.ts";
import { errorResponses } from "../openapi.ts";
import { invalidRequest } from "../../http/problem.ts";
import { knownRepository } from "../repo-access.ts";

const MetricsQuery = Type.Object({
  repo: Type.Optional(
    Type.String({ description: "owner/name; without it, every repository of the token's organization" }),
  ),
  repoHost: Type.Optional(Type.String({ description: "the repository's host; required with repo" })),
});
type MetricsQuery = Static<typeof MetricsQuery>;

const ownerAndName = /^([A-Za-z0-9][A-Za-z0-9-]*)\/([A-Za-z0-9._-]+)$/;

/** The one repository a scrape names, if any; repo and repoHost come together (docs/monitoring.md#merge-queue-metrics). */
function requestedRepository(query: MetricsQuery) {
  const { repo, repoHost } = query;
  if (repo === undefined && repoHost === undefined) return undefined;
  if (repo === undefined || repoHost === undefined) {
    const missing = repo === undefined ? "repo" : "repoHost";
    throw invalidRequest(
      `repo and repoHost go together: add ${missing}, or leave both out for every repository`,
      [{ path: missing, message: "is required with " + (missing === "repo" ? "repoHost" : "repo") }],
    );
  }
  const match = ownerAndName.exec(repo);
  if (match === null) {
    throw invalidRequest(`repo must be owner/name, such as acme/widgets, not "${repo}"`, [
      { path: "repo", message: "must be owner/name" },
    ]);
  }
  return { host: repoHost, owner: match[1] as string, name: match[2] as string };
}

export function registerMetricsRoutes(api: FastifyInstance, deps: EdgeDependencies): void {
  api.get<{ Querystring: MetricsQuery }>(
    "/getMergeQueueMetrics",
    {
      // Prometheus before 2.55 cannot send custom headers; it can send `Authorization: Bearer`.
      config: { acceptsBearerToken: true },
      schema: {
        operationId: "getMergeQueueMetrics",
        summary: "Merge queue metrics in the Prometheus text format",
        querystring: MetricsQuery,
        response: {
          200: {
            description: "Prometheus text exposition 0.0.4",
            content: { [expositionContentType]: { schema: Type.String() } },
          },
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const ref = requestedRepository(request.query);
      const repository = ref === undefined ? undefined : await knownRepository(deps, principal, ref);
      const text = await deps.queueMetrics(
        { organizationId: principal.organizationId, repositoryId: repository?.id },
        deps.clock(),
      );
      return reply.type(expositionContentType).send(text);
    },
  );
}
