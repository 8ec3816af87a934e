// Before the GitHub App is registered Probot's `run` serves its setup page and nothing else, so probes and /v1 would
// read 404. This serves the same setup page (Probot's own handler) beside /healthz and /readyz, which then says what
// is missing, and beside what needs no app: tokens, /v1/openapi.json, test health's endpoints and pages, /metrics.
// The queue's endpoints answer 503 github_app_not_registered, saying how to register the app.
import { Probot, type Server as ProbotServer, Server } from "probot";
import { mountService } from "./app.ts";
import { operatorEndpoints } from "./operator-endpoints.ts";
import type { Config } from "./config.ts";
import type { Store } from "./store/database.ts";

type HandlerFactory = Parameters<ProbotServer["loadHandlerFactory"]>[0];
type SetupAppFactory = (options: { host: string; port: number; log: Probot["log"] }) => HandlerFactory;

/** Probot's setup app, which its package does not export: taken from beside its entry point. */
async function probotSetupApp(): Promise<SetupAppFactory> {
  const module = (await import(new URL("apps/setup.js", import.meta.resolve("probot")).href)) as {
    setupAppFactory: SetupAppFactory;
  };
  return module.setupAppFactory;
}

export async function startSetupServer(config: Config, store: Store): Promise<ProbotServer> {
  const server = new Server({
    host: config.host ?? "localhost",
    port: config.port,
    // As Probot's `run` does in setup mode: the Probot instance only serves the setup flow, never GitHub.
    Probot: Probot.defaults({ appId: 1, privateKey: "unused: the app is not registered yet" }),
  });
  let log: Probot["log"] | undefined;
  await server.load(async (app, { addHandler }) => {
    log = app.log;
    // The engine is never started: nothing of the queue runs until the app is registered.
    await mountService(app, addHandler, { config, store, clock: Date.now, githubAppRegistered: false });
    const processMetrics = config.operatorMetrics
      ? (await import("./metrics/process-metrics.ts")).processMetricsRegistry()
      : null;
    addHandler?.(operatorEndpoints({ store, log, processMetrics, githubAppRegistered: false }));
  });
  const setupApp = await probotSetupApp();
  await server.loadHandlerFactory(
    setupApp({ host: server.host, port: server.port, log: (log as Probot["log"]).child({ name: "setup" }) }),
  );
  await server.start();
  return server;
}
