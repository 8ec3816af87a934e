// Where a run's required statuses come from when the queue has no override (docs/queue.md#required-statuses): the repo's
// `.github/switchyard.yml` (`merge.required_statuses`), else branch protection and rulesets.
import { parse as parseYaml } from "yaml";
import type { RequiredStatusesSource } from "../queue/index.ts";
import type { InstallationOctokit } from "./octokit.ts";

export const configFilePath = ".github/switchyard.yml";

export interface ResolvedStatuses {
  statuses: string[];
  source: RequiredStatusesSource;
}

const statusOf = (error: unknown) => (error as { status?: number }).status;

/** Read a file of the branch; null when it is not there. */
async function readFile(
  octokit: InstallationOctokit,
  owner: string,
  repo: string,
  path: string,
  ref: string,
) {
  try {
    const { data } = await octokit.rest.repos.getContent({ owner, repo, path, ref });
    if (Array.isArray(data) || data.type !== "file" || !("content" in data)) return null;
    return Buffer.from(data.content, "base64").toString("utf8");
  } catch (error) {
    if (statusOf(error) === 404) return null;
    throw error;
  }
}

/** `merge.required_statuses` of the config file; null when the file or the key is absent or unusable. */
export function requiredStatusesInConfig(text: string): string[] | null {
  let config: unknown;
  try {
    config = parseYaml(text);
  } catch {
    return null;
  }
  const statuses = (config as { merge?: { required_statuses?: unknown } } | null)?.merge?.required_statuses;
  if (!Array.isArray(statuses)) return null;
  const names = statuses.filter((name): name is string => typeof name === "string" && name.trim() !== "");
  return names.length > 0 ? [...new Set(names.map((name) => name.trim()))] : null;
}

/** Checks required by classic branch protection and by rulesets that apply to the branch. */
async function requiredByGitHub(octokit: InstallationOctokit, owner: string, repo: string, branch: string) {
  const names = new Set<string>();
  try {
    const { data } = await octokit.rest.repos.getStatusChecksProtection({ owner, repo, branch });
    for (const context of data.contexts ?? []) names.add(context);
    for (const check of data.checks ?? []) names.add(check.context);
  } catch (error) {
    // 404: the branch is not protected (or has no status check rule); 403: the app may not read it.
    if (statusOf(error) !== 404 && statusOf(error) !== 403) throw error;
  }
  try {
    const rules = await octokit.paginate(octokit.rest.repos.getBranchRules, {
      owner,
      repo,
      branch,
      per_page: 100,
    });
    for (const rule of rules) {
      if (rule.type !== "required_status_checks") continue;
      const parameters = rule.parameters as { required_status_checks?: { context: string }[] } | undefined;
      for (const check of parameters?.required_status_checks ?? []) names.add(check.context);
    }
  } catch (error) {
    if (statusOf(error) !== 404 && statusOf(error) !== 403) throw error;
  }
  return [...names];
}

export async function resolveRequiredStatuses(
  octokit: InstallationOctokit,
  owner: string,
  repo: string,
  branch: string,
): Promise<ResolvedStatuses> {
  const config = await readFile(octokit, owner, repo, configFilePath, branch);
  const fromConfig = config === null ? null : requiredStatusesInConfig(config);
  if (fromConfig !== null) return { statuses: fromConfig, source: "service_config" };
  return {
    statuses: await requiredByGitHub(octokit, owner, repo, branch),
    source: "repo_provider_branch_protection",
  };
}
