// The HTTP server of the service: one Fastify instance that the node:http server (src/http/service-server.ts) hands
// every /v1, /tests and /queues request to, with the /v1 routes (src/api/) and the pages (src/web/) mounted in it (docs/architecture.md).
import type { IncomingMessage, ServerResponse } from "node:http";
import Fastify, { type FastifyError, type FastifyInstance } from "fastify";
import { registerAuthentication } from "./api/auth.ts";
import type { EdgeDependencies } from "./http/dependencies.ts";
import { isJsonContentType, registerJsonBodyParser } from "./http/json-body.ts";
import { loggableUrl, requestIdOf } from "./http/request-log.ts";
import { lazySchemaCompilers } from "./api/lazy-schema-compilers.ts";
import { registerOpenApi } from "./api/openapi.ts";
import { queuePagesPrefix } from "./web/queues/queue-addresses.ts";
import { registerTestPages, testPagesPrefix } from "./web/test-pages.ts";
import { githubAppNotRegistered, githubProblem } from "./http/github-problems.ts";
import {
  type FieldError,
  invalidRequest,
  Problem,
  problemContentType,
  refusalProblem,
} from "./http/problem.ts";
import { Refusal } from "./ports/refusals.ts";
import { registerAutoQuarantineRoutes } from "./api/routes/auto-quarantine.ts";
import { registerTestHealthRoutes } from "./api/routes/test-health-routes.ts";
import { registerMetricsRoutes } from "./api/routes/metrics.ts";
import { registerPullRequestRoutes } from "./api/routes/submission-routes.ts";
import { registerQueueRoutes } from "./api/routes/queue-routes.ts";
import { registerTestRunRoutes } from "./api/routes/test-runs.ts";
import { lowercaseEnumValues } from "./api/schema-types.ts";
import { sharedSchemas } from "./api/schemas.ts";

export const apiPrefix = "/v1";

export async function buildApi(
  deps: EdgeDependencies,
  version: string,
  options: { githubAppRegistered: boolean } = { githubAppRegistered: true },
): Promise<FastifyInstance> {
  const api = Fastify({
    logger: false,
    // The request logger's id (request-log.ts), so that a 500's "request …" finds its log lines.
    genReqId: requestIdOf,
    ajv: {
      customOptions: { allErrors: true, coerceTypes: false, removeAdditional: false, useDefaults: false },
    },
    schemaController: { compilersFactory: lazySchemaCompilers() },
  });
  for (const schema of sharedSchemas) api.addSchema(schema);
  registerJsonBodyParser(api);
  registerAuthentication(api, deps);
  api.setErrorHandler((error, request, reply) => {
    let problem = githubProblem(error, Date.now()) ?? toProblem(error as FastifyError);
    if (problem.retryAfterSeconds !== undefined)
      reply.header("retry-after", String(problem.retryAfterSeconds));
    if (problem.status >= 500) {
      // docs/api.md#errors: a 500 says nothing about internals; the request id in the log and the body links them.
      const url = loggableUrl(request.url);
      if (problem.code === "internal_error") {
        deps.log.error({ err: error, requestId: request.id, url }, "API request failed");
      } else {
        // A state the service names: its code and detail say all an operator needs, where a stack would only make
        // it look like a bug. GitHub down or rate-limiting, or the app not registered yet, passes or is being
        // set up; a refusal GitHub will repeat (a permission, the app's credentials) needs someone to act.
        const { status, code } = problem;
        const level = code === "github_refused" ? "error" : "warn";
        deps.log[level](
          { requestId: request.id, url, status, code },
          `API request failed: ${problem.message}`,
        );
      }
      problem = new Problem(problem.status, problem.code, `${problem.message} (request ${request.id})`);
    }
    return reply.code(problem.status).type(problemContentType).send(problem.toBody());
  });
  api.setNotFoundHandler((request, reply) => {
    // The path only: a query string may carry a secret (docs/security.md).
    const path = request.url.split("?")[0] ?? request.url;
    const allowed = methodOfPath(api, request.method, path);
    if (allowed !== undefined) reply.header("allow", allowed);
    const problem = allowed
      ? new Problem(405, "method_not_allowed", `${request.method} is not allowed on ${path}; use ${allowed}`)
      : new Problem(404, "not_found", `no such endpoint: ${request.method} ${path}`);
    return reply.code(problem.status).type(problemContentType).send(problem.toBody());
  });
  // A callback hook, not an async one: no promise and microtask for every request.
  api.addHook("preValidation", (request, _reply, done) => {
    if (request.method !== "POST" || request.routeOptions.config.takesForm === true) return done();
    // docs/api.md#conventions: a POST must be JSON even when it has no body at all.
    if (!isJsonContentType(request.headers["content-type"])) {
      return done(
        new Problem(415, "unsupported_media_type", "send the request body as Content-Type: application/json"),
      );
    }
    if (request.body !== null && typeof request.body === "object") {
      lowercaseEnumValues(request.routeOptions.schema?.body, request.body);
    }
    done();
  });

  await api.register(
    async (v1) => {
      await registerOpenApi(v1, version);
      await v1.register(async (queue) => {
        // Setup mode: the queue works on GitHub through the app, so each of its endpoints says how to get one.
        if (!options.githubAppRegistered) {
          queue.addHook("preHandler", async () => {
            throw githubAppNotRegistered(deps.config);
          });
        }
        registerQueueRoutes(queue, deps);
        registerPullRequestRoutes(queue, deps);
        registerTestRunRoutes(queue, deps);
        registerMetricsRoutes(queue, deps);
      });
      registerTestHealthRoutes(v1, deps);
      registerAutoQuarantineRoutes(v1, deps);
    },
    { prefix: apiPrefix },
  );
  await registerTestPages(api, deps);
  await api.ready();
  return api;
}

/**
 * A Probot `addHandler` handler: takes /v1 requests, the test pages and the queue pages, leaves the rest (webhooks, setup, ping) to
 * Probot.
 */
export function apiHandler(api: FastifyInstance) {
  const ours = (url: string, prefix: string) =>
    url === prefix || url.startsWith(`${prefix}/`) || url.startsWith(`${prefix}?`);
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const url = req.url ?? "";
    if (![apiPrefix, testPagesPrefix, queuePagesPrefix].some((prefix) => ours(url, prefix))) return false;
    api.routing(req, res);
    return true;
  };
}

/** The method a known path takes, when the request used another one. */
function methodOfPath(api: FastifyInstance, method: string, path: string): string | undefined {
  return ["GET", "POST", "PUT", "PATCH", "DELETE"].find(
    (other) => other !== method && api.hasRoute({ method: other as "GET", url: path }),
  );
}

function toProblem(error: FastifyError): Problem {
  if (error instanceof Problem) return error;
  if (error instanceof Refusal) return refusalProblem(error);
  if (error.validation !== undefined) {
    const errors = fieldErrors(error.validation);
    return invalidRequest(
      `the request is invalid: ${errors.map((e) => `${e.path} ${e.message}`).join("; ")}`,
      errors,
    );
  }
  switch (error.code) {
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return new Problem(
        415,
        "unsupported_media_type",
        "send the request body as Content-Type: application/json",
      );
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return new Problem(400, "invalid_json", "the request body is empty; send a JSON object");
  }
  if (typeof error.statusCode === "number" && error.statusCode >= 400 && error.statusCode < 500) {
    return new Problem(error.statusCode, "invalid_request", error.message);
  }
  return new Problem(500, "internal_error", "internal error: the service logged the details");
}

type AjvError = NonNullable<FastifyError["validation"]>[number];

/**
 * ajv's errors → one entry per bad field, with dotted paths ("pr.number"). A value that matches no branch
 * of a union is reported where it went wrong inside the closest branch when there is such a place
 * ("impactedTargets.0"), else once, naming what each branch wanted.
 */
function fieldErrors(validation: AjvError[]): FieldError[] {
  const located = validation.map((error) => {
    const segments = error.instancePath.split("/").filter((s) => s !== "");
    const missing = (error.params as { missingProperty?: string }).missingProperty;
    if (missing !== undefined) segments.push(missing);
    return { error, path: segments.join(".") || "(body)", missing };
  });
  const unions = new Set(located.filter(({ error }) => error.keyword === "anyOf").map(({ path }) => path));
  const deeper = (path: string) => located.some((other) => other.path.startsWith(`${path}.`));
  // A branch that wants one exact value says so; its "must be string" adds nothing.
  const branchOf = (error: AjvError) => error.schemaPath.replace(/\/[^/]+$/, "");
  const exactBranches = new Set(
    validation.filter((e) => e.keyword === "const" || e.keyword === "enum").map(branchOf),
  );
  const byPath = new Map<string, string[]>();
  for (const { error, path, missing } of located) {
    if (error.keyword === "anyOf") continue;
    if (unions.has(path) && deeper(path)) continue;
    if (error.keyword === "type" && exactBranches.has(branchOf(error))) continue;
    const message = missing !== undefined ? "is required" : describe(error, error.message ?? "is invalid");
    const messages = byPath.get(path) ?? [];
    if (!messages.includes(message)) messages.push(message);
    byPath.set(path, messages);
  }
  return [...byPath].map(([path, messages]) => ({
    path,
    message: unions.has(path) ? messages.join(", or ") : (messages[0] as string),
  }));
}

function describe(error: AjvError, message: string): string {
  const params = error.params as { allowedValues?: unknown[]; allowedValue?: unknown };
  if (error.keyword === "enum" && params.allowedValues !== undefined) {
    return `must be one of ${params.allowedValues.join(", ")}`;
  }
  if (error.keyword === "const") return `must be ${JSON.stringify(params.allowedValue)}`;
  return message;
}
