// The Probot app: wires webhooks to the domain and mounts the /v1 API into Probot's server.
import type { ApplicationFunction } from "probot";
import { apiHandler, buildApi } from "./api/server.ts";
import type { Config } from "./config.ts";
import { githubInstallations, registerInstallationWebhooks } from "./github/installations.ts";
import type { Store } from "./store/database.ts";
import packageJson from "../package.json" with { type: "json" };

export interface AppDependencies {
  config: Config;
  store: Store;
  clock?: () => number;
}

export function switchyardApp({ config, store, clock = Date.now }: AppDependencies): ApplicationFunction {
  return async (app, { addHandler }) => {
    registerInstallationWebhooks(app, store, config.githubHost, clock);
    const api = await buildApi(
      { config, store, installations: githubInstallations(app), log: app.log, clock },
      packageJson.version,
    );
    addHandler?.(apiHandler(api));
  };
}
