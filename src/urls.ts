import type { Config } from "./config.ts";

/** A PR's page on GitHub (or GitHub Enterprise Server). */
export function pullRequestUrl(
  config: Pick<Config, "githubWebUrl">,
  repo: { owner: string; name: string },
  prNumber: number,
): string {
  return `${config.githubWebUrl}/${repo.owner}/${repo.name}/pull/${prNumber}`;
}
