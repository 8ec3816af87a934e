// Process entry: configuration → database → server. No logic lives here. The JUnit report reader's thread starts
// with the first upload (a tenth of a second, once), not here: idle, it would hold a V8 heap of its own.
import { run } from "probot";
import { switchyardApp } from "./app.ts";
import { ConfigError, loadConfig, loadDotEnv } from "./config.ts";
import { githubOctokit } from "./github/octokit.ts";
import { githubWriteLimits, WritePacer } from "./github/write-pacing.ts";
import { openMigratedDatabase } from "./store/database.ts";

async function main(): Promise<void> {
  loadDotEnv();
  const config = loadConfig();
  const store = await openMigratedDatabase(config.databaseUrl);
  // In production Probot's `run` refuses to start without the app's credentials rather than offer the setup page.
  const setupMode = config.githubApp === null && process.env.NODE_ENV !== "production";
  const server = setupMode
    ? await (await import("./setup-server.ts")).startSetupServer(config, store)
    : await run(switchyardApp({ config, store }), {
        env: { ...process.env, PORT: String(config.port), LOG_LEVEL: config.logLevel },
        Octokit: githubOctokit({
          timeoutMs: config.githubTimeoutMs,
          writePacer: new WritePacer(githubWriteLimits),
        }),
      });
  process.once("SIGTERM", async () => {
    await server.stop();
    await store.close();
    process.exit(0);
  });
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
