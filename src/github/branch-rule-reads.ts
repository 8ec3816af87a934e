// The rules GitHub enforces on a branch, read as the queue honours them (see src/queue/branch-rules.ts): every
// active ruleset rule that applies to it (`GET /rules/branches/{branch}`, whatever level set it), and legacy
// branch protection's settings that refuse a change for what it brings.
import type { BranchRule } from "../queue/index.ts";
import type { InstallationOctokit } from "./octokit.ts";

type Repo = { owner: string; repo: string };

const statusOf = (error: unknown) => (error as { status?: number }).status;

/** Legacy protection's settings the queue acts on, under their names in GitHub's protection answer. */
const legacySettings = ["required_signatures", "required_linear_history", "lock_branch"] as const;

async function rulesetRules(octokit: InstallationOctokit, repo: Repo, branch: string): Promise<BranchRule[]> {
  const rules = await octokit.paginate(octokit.rest.repos.getBranchRules, { ...repo, branch, per_page: 100 });
  return rules.map((rule) => {
    const { ruleset_id: id } = rule as { ruleset_id?: number };
    return { type: rule.type, source: id === undefined ? "ruleset" : `ruleset ${id}` };
  });
}

/**
 * Reading protection takes the app's "Administration: read" permission: without it (403) the queue honours the
 * rulesets it can read, and still tells a refusal for a legacy rule by GitHub's message when it comes.
 */
async function legacyRules(octokit: InstallationOctokit, repo: Repo, branch: string): Promise<BranchRule[]> {
  let protection: Record<string, unknown>;
  try {
    ({ data: protection } = await octokit.rest.repos.getBranchProtection({ ...repo, branch }));
  } catch (error) {
    if (statusOf(error) === 404 || statusOf(error) === 403) return [];
    throw error;
  }
  const enabled = (name: string) => (protection[name] as { enabled?: boolean } | undefined)?.enabled === true;
  const rules: BranchRule[] = legacySettings
    .filter(enabled)
    .map((type) => ({ type, source: "branch protection" }));
  if (protection.required_status_checks !== undefined) {
    rules.push({ type: "required_status_checks", source: "branch protection" });
  }
  return rules;
}

/** The branch's rules, each rule once per place that sets it. */
export async function readBranchRules(
  octokit: InstallationOctokit,
  repo: Repo,
  branch: string,
): Promise<BranchRule[]> {
  const [fromRulesets, fromProtection] = await Promise.all([
    rulesetRules(octokit, repo, branch),
    legacyRules(octokit, repo, branch),
  ]);
  const seen = new Set<string>();
  return [...fromRulesets, ...fromProtection].filter((rule) => {
    const key = `${rule.type}\u0000${rule.source}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
