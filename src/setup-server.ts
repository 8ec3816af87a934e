// Before the GitHub App is registered the service serves Probot's setup page (Probot's own handler and its static
// files) beside /healthz and /readyz, which then says what is missing, behind the same HTTP server and request
// logger as the app (src/http/service-server.ts).
import type { Logger } from "pino";
import { operatorEndpoints } from "./operator-endpoints.ts";
import type { Config } from "./config.ts";
import { type Handler, type HttpService, pingHandler, serveHttp } from "./http/service-server.ts";
import type { Store } from "./store/database.ts";

type SetupAppFactory = (options: { host: string; port: number; log: Logger }) => () => Promise<Handler>;

/** A module of Probot's that its package does not export: taken from beside its entry point. */
async function probotModule<T>(path: string): Promise<T> {
  return (await import(new URL(path, import.meta.resolve("probot")).href)) as T;
}

export async function startSetupServer(config: Config, store: Store, log: Logger): Promise<HttpService> {
  const { setupAppFactory } = await probotModule<{ setupAppFactory: SetupAppFactory }>("apps/setup.js");
  const { staticFilesHandler } = await probotModule<{ staticFilesHandler: Handler }>(
    "server/handlers/static-files.js",
  );
  const host = config.host ?? "localhost";
  const setup = await setupAppFactory({ host, port: config.port, log: log.child({ name: "setup" }) })();
  const operator = operatorEndpoints({ store, log, processMetrics: null, githubAppRegistered: false });
  return serveHttp({
    log,
    host,
    port: config.port,
    handlers: [pingHandler, staticFilesHandler, operator, setup],
  });
}
