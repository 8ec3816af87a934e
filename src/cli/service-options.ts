// The options of every command that calls the service: where it runs, the API token, and the repository it is
// about. Each falls back to the environment CI sets (see ci-environment.ts).
import type { Command } from "commander";

export interface ServiceOptions {
  url?: string;
  token?: string;
  repo?: string;
  repoHost?: string;
}

export function addServiceOptions(command: Command): Command {
  return command
    .option("--url <url>", "the Switchyard service (env SWITCHYARD_URL)")
    .option("--token <token>", "an API token (env SWITCHYARD_TOKEN)")
    .option("--repo <owner/name>", "the repository (env GITHUB_REPOSITORY)")
    .option(
      "--repo-host <host>",
      "the repository's GitHub host (default: that of GITHUB_SERVER_URL, or github.com)",
    );
}
