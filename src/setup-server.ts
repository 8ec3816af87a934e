// Before the GitHub App is registered the service serves Probot's setup page (Probot's own handler and its static
// files) beside /healthz and /readyz, which then says what is missing, and beside what needs no app: tokens,
// /v1/openapi.json, test health's endpoints and pages, /metrics. The queue's endpoints answer 503
// github_app_not_registered, saying how to register the app. It runs behind the same HTTP server and request
// logger as the app (src/http/service-server.ts).
import type { Logger } from "pino";
import { Probot } from "probot";
import { mountService } from "./app.ts";
import { operatorEndpoints } from "./operator-endpoints.ts";
import type { Config } from "./config.ts";
import { type Handler, type HttpService, pingHandler, serveHttp } from "./http/service-server.ts";
import type { Store } from "./store/database.ts";

type SetupAppFactory = (options: { host: string; port: number; log: Logger }) => () => Promise<Handler>;

/** A module of Probot's that its package does not export: taken from beside its entry point. */
async function probotModule<T>(path: string): Promise<T> {
  return (await import(new URL(path, import.meta.resolve("probot")).href)) as T;
}

/**
 * The service's edges without a GitHub App: the Probot instance only carries the logger and never reaches
 * GitHub, and the engine is never started, so nothing of the queue runs until the app is registered.
 */
async function appFreeHandlers(config: Config, store: Store, log: Logger): Promise<Handler[]> {
  const probot = new Probot({ appId: 1, privateKey: "unused: the app is not registered yet", log });
  const handlers: Handler[] = [];
  await probot.load(async (app) => {
    await mountService(app, (handler) => void handlers.push(handler), {
      config,
      store,
      clock: Date.now,
      githubAppRegistered: false,
    });
  });
  const processMetrics = config.operatorMetrics
    ? (await import("./metrics/process-metrics.ts")).processMetricsRegistry()
    : null;
  handlers.push(operatorEndpoints({ store, log, processMetrics, githubAppRegistered: false }));
  return handlers;
}

/** The host to open in a browser: a wildcard address (listening everywhere) is opened as localhost. */
export function browsable(host: string): string {
  if (host === "0.0.0.0" || host === "::") return "localhost";
  return host.includes(":") ? `[${host}]` : host;
}

export async function startSetupServer(config: Config, store: Store, log: Logger): Promise<HttpService> {
  const { setupAppFactory } = await probotModule<{ setupAppFactory: SetupAppFactory }>("apps/setup.js");
  const { staticFilesHandler } = await probotModule<{ staticFilesHandler: Handler }>(
    "server/handlers/static-files.js",
  );
  const host = config.host ?? "localhost";
  // Probot's welcome, logged as its setup app starts, says in eight lines (two of them empty) that "custom routes
  // will not work" until the app is registered, where most of ours do: ours below replaces it. Its warnings (a
  // smee.io channel out of reach) still show, and so does what it logs later (the restart once registered).
  const setupLog = log.child({ name: "setup" });
  setupLog.level = "warn";
  const setup = await setupAppFactory({ host, port: config.port, log: setupLog })();
  setupLog.level = log.level;
  log.info(
    `No GitHub App is registered yet: open http://${browsable(host)}:${config.port} to ` +
      "register one (the page writes APP_ID, PRIVATE_KEY and WEBHOOK_SECRET to .env; or set them yourself), then " +
      "restart the service. Until then, API tokens, test health (/v1/flaky-tests/…, the pages under /tests/), " +
      "/v1/openapi.json, /healthz and /metrics work; the merge queue's endpoints answer 503 github_app_not_registered",
  );
  return serveHttp({
    log,
    host,
    port: config.port,
    handlers: [pingHandler, staticFilesHandler, ...(await appFreeHandlers(config, store, log)), setup],
  });
}
