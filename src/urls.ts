import type { Config } from "./config.ts";

/** The path of a repository's queue pages, or of one queue's page, below the service's root. */
export function queuePagesPath(
  repo: { host: string; owner: string; name: string },
  branch: string | null,
): string {
  const segments = [repo.host, repo.owner, repo.name, ...(branch === null ? [] : [branch])];
  return `/queues/${segments.map(encodeURIComponent).join("/")}`;
}

/** A PR's row on its queue's page, which the PR's comment and commit status link to. */
export function queuePageUrl(
  config: Pick<Config, "publicUrl">,
  location: { host: string; owner: string; name: string; targetBranch: string },
  prNumber: number,
): string {
  return `${config.publicUrl}${queuePagesPath(location, location.targetBranch)}#pr-${prNumber}`;
}

/** A PR's page on GitHub (or GitHub Enterprise Server). */
export function pullRequestUrl(
  config: Pick<Config, "githubWebUrl">,
  repo: { owner: string; name: string },
  prNumber: number,
): string {
  return `${config.githubWebUrl}/${repo.owner}/${repo.name}/pull/${prNumber}`;
}
