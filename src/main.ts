// Process entry: configuration → logger → database → server. No logic lives here. The JUnit report reader's thread
// starts with the first upload (a tenth of a second, once), not here: idle, it would hold a V8 heap of its own.
import { createNodeMiddleware, createProbot } from "probot";
import { switchyardApp } from "./app.ts";
import { type Config, ConfigError, loadConfig, loadDotEnv } from "./config.ts";
import { githubOctokit } from "./github/octokit.ts";
import { githubWriteLimits, WritePacer } from "./github/write-pacing.ts";
import { createLogger } from "./http/logger.ts";
import { type Handler, type HttpService, pingHandler, serveHttp } from "./http/service-server.ts";
import { openMigratedDatabase, type Store } from "./store/database.ts";
import packageJson from "../package.json" with { type: "json" };

type Logger = Awaited<ReturnType<typeof createLogger>>;

async function main(): Promise<void> {
  loadDotEnv();
  const config = loadConfig();
  const log = await createLogger({ level: config.logLevel, format: config.logFormat });
  log.info(`Running Switchyard ${packageJson.version} (Node ${process.version})`);
  const store = await openMigratedDatabase(config.databaseUrl);
  // In production the service refuses to start without the app's credentials rather than offer the setup page.
  const setupMode = config.githubApp === null && process.env.NODE_ENV !== "production";
  const server = setupMode
    ? await (await import("./setup-server.ts")).startSetupServer(config, store, log)
    : await serveGitHubApp(config, store, log);
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, async () => {
      await server.stop();
      await store.close();
      process.exit(0);
    });
  }
}

/** The GitHub App (Probot, with its webhook endpoint and the app's handlers) behind our HTTP server. */
async function serveGitHubApp(config: Config, store: Store, log: Logger): Promise<HttpService> {
  if (config.githubApp === null) {
    throw new ConfigError(["APP_ID and PRIVATE_KEY (or PRIVATE_KEY_PATH) must be set in production"]);
  }
  // Probot reads its own variables (APP_ID, the private key, WEBHOOK_SECRET, WEBHOOK_PATH, GHE_HOST) as `run` would.
  const probot = createProbot({
    overrides: {
      log,
      Octokit: githubOctokit({
        timeoutMs: config.githubTimeoutMs,
        writePacer: new WritePacer(githubWriteLimits),
      }),
    },
  });
  const ours: Handler[] = [];
  const serveHandler = (handler: Handler) => void ours.push(handler);
  const app = await createNodeMiddleware(switchyardApp({ config, store, serveHandler }), { probot });
  const server = await serveHttp({
    log,
    host: config.host,
    port: config.port,
    handlers: [pingHandler, ...ours, app],
  });
  const proxy = process.env.WEBHOOK_PROXY_URL;
  if (proxy !== undefined && proxy.trim() !== "") {
    const target = `http://${config.host ?? "localhost"}:${server.port}${probot.webhookPath}`;
    // Loaded only for development through a smee.io channel: a service never pays for it.
    const { SmeeClient } = await import("smee-client");
    await new SmeeClient({ source: proxy, target, logger: log }).start();
  }
  return server;
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
