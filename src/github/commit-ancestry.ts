import type { InstallationOctokit } from "./octokit.ts";

/** Whether `descendant` holds `ancestor` (GitHub's compare: nothing of `descendant` is behind `ancestor`). */
export async function holdsCommit(
  octokit: InstallationOctokit,
  repo: { owner: string; repo: string },
  descendant: string,
  ancestor: string,
): Promise<boolean> {
  const { data } = await octokit.rest.repos.compareCommitsWithBasehead({
    ...repo,
    basehead: `${ancestor}...${descendant}`,
    per_page: 1,
  });
  return data.status === "ahead" || data.status === "identical";
}
