// Process entry: configuration → database → server. No logic lives here.
import { run } from "probot";
import { switchyardApp } from "./app.ts";
import { SwitchyardOctokit } from "./github/octokit.ts";
import { startReportReader } from "./health/report-reader.ts";
import { ConfigError, loadConfig, loadDotEnv } from "./config.ts";
import { openMigratedDatabase } from "./store/database.ts";

async function main(): Promise<void> {
  loadDotEnv();
  const config = loadConfig();
  const store = await openMigratedDatabase(config.databaseUrl);
  // Uploads wait for it otherwise; it is started again on the next upload should it fail now.
  startReportReader().catch((error: unknown) => console.error(error));
  const server = await run(switchyardApp({ config, store }), {
    env: { ...process.env, PORT: String(config.port), LOG_LEVEL: config.logLevel },
    Octokit: SwitchyardOctokit,
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
