// Endpoints for load balancers, Kubernetes and the operator's Prometheus, outside /v1 and without a token:
// /healthz (the process answers), /readyz (the database answers and is migrated, the GitHub App is registered),
// when OPERATOR_METRICS is on /metrics (process metrics), and / (where to go from here). Mounted through Probot's
// addHandler, beside webhooks and /v1; before the app is registered, beside Probot's setup page (setup-server.ts).
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "probot";
import type { Registry } from "prom-client";
import type { Store } from "./store/database.ts";
import { checkReadiness } from "./store/database-readiness.ts";
import { openApiPath } from "./api/openapi.ts";
import { testPagesPrefix } from "./web/test-pages.ts";
import { Problem, problemContentType } from "./http/problem.ts";
import { apiPrefix } from "./http-server.ts";

/** Below Kubernetes' default probe timeout of 1 s, so the probe reads a 503 rather than timing out. */
const readinessTimeoutMs = 900;

export interface OperatorEndpointsOptions {
  store: Store;
  log: Logger;
  /** Serves /metrics when set. */
  processMetrics: Registry | null;
  /**
   * False in setup mode (no GitHub App credentials): the process is live but not ready, and / is left to Probot's
   * setup page, which is where to go then.
   */
  githubAppRegistered: boolean;
}

/** What / answers once the app runs: the places a person or a client starts from. */
const startingPoints = {
  name: "Switchyard",
  links: {
    apiDocs: `${apiPrefix}${openApiPath}`,
    testHealthPages: `${testPagesPrefix}/{host}/{owner}/{name}`,
    health: "/healthz",
    readiness: "/readyz",
  },
};

function send(req: IncomingMessage, res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { "content-type": type, "cache-control": "no-store" });
  res.end(req.method === "HEAD" ? undefined : body);
}

function sendProblem(req: IncomingMessage, res: ServerResponse, problem: Problem): void {
  send(req, res, problem.status, problemContentType, JSON.stringify(problem.toBody()));
}

export function operatorEndpoints({
  store,
  log,
  processMetrics,
  githubAppRegistered,
}: OperatorEndpointsOptions) {
  const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => Promise<void>> = {
    "/healthz": async (req, res) => send(req, res, 200, "application/json", JSON.stringify({ status: "ok" })),
    "/readyz": async (req, res) => {
      const readiness = await checkReadiness(store.db, readinessTimeoutMs);
      if (readiness.ready && !githubAppRegistered) {
        const detail =
          "the GitHub App is not registered: open /probot to register it, or set APP_ID and PRIVATE_KEY";
        return sendProblem(req, res, new Problem(503, "github_app_not_registered", detail));
      }
      if (readiness.ready) {
        const body = { status: "ready", migration: readiness.migration };
        return send(req, res, 200, "application/json", JSON.stringify(body));
      }
      if (readiness.reason === "database_unreachable") {
        // The body says nothing of the database's address or driver; the log does.
        log.warn({ err: readiness.error }, "not ready: the database does not answer");
        return sendProblem(req, res, new Problem(503, readiness.reason, "the database does not answer"));
      }
      const detail = `the database lacks migration ${readiness.migration}: run \`switchyard migrate\``;
      log.warn({ migration: readiness.migration }, `not ready: ${detail}`);
      return sendProblem(req, res, new Problem(503, readiness.reason, detail));
    },
  };
  if (githubAppRegistered) {
    routes["/"] = async (req, res) => send(req, res, 200, "application/json", JSON.stringify(startingPoints));
  }
  if (processMetrics !== null) {
    routes["/metrics"] = async (req, res) =>
      send(req, res, 200, processMetrics.contentType, await processMetrics.metrics());
  }

  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const route = routes[(req.url ?? "").split("?")[0] ?? ""];
    if (route === undefined) return false;
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.setHeader("allow", "GET, HEAD");
      sendProblem(
        req,
        res,
        new Problem(405, "method_not_allowed", `${req.method} is not allowed here; use GET`),
      );
      return true;
    }
    await route(req, res);
    return true;
  };
}
