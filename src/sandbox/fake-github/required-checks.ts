// Whether a commit satisfies the required status checks of a branch (protection and rulesets), as GitHub
// checks before a merge or a push to that branch.
import type { CiRecords } from "./check-results.ts";
import type { RepositorySettings } from "./repository-settings.ts";
import { GitHubApiError } from "./world.ts";

const passingConclusions: readonly (string | null)[] = ["success", "neutral", "skipped"];
const failingConclusions: readonly (string | null)[] = [
  "failure",
  "cancelled",
  "timed_out",
  "action_required",
  "startup_failure",
];

/** A context passed when its latest commit status succeeded or its latest check run passed. */
export function unmetRequiredChecks(
  ci: CiRecords,
  settings: RepositorySettings,
  branch: string,
  sha: string,
): string[] {
  const statuses = ci.latestStatusesOf(sha);
  const runs = ci.checkRunsOf(sha);
  return settings
    .requiredChecksFor(branch)
    .filter(
      (context) =>
        !statuses.some((status) => status.context === context && status.state === "success") &&
        !runs.some((run) => run.name === context && passingConclusions.includes(run.conclusion)),
    );
}

/** Throws GitHub's refusal (with `status`) when `sha` lacks a required check of `branch`. */
export function enforceRequiredChecks(
  ci: CiRecords,
  settings: RepositorySettings,
  branch: string,
  sha: string,
  status: number,
): void {
  const unmet = unmetRequiredChecks(ci, settings, branch, sha);
  const total = settings.requiredChecksFor(branch).length;
  if (unmet.length === 1)
    throw new GitHubApiError(status, `Required status check "${unmet[0]}" is expected.`);
  if (unmet.length > 1) {
    throw new GitHubApiError(status, `${unmet.length} of ${total} required status checks are expected.`);
  }
}

/** Any failing status or check, required or not: what makes GitHub call a PR `unstable`. */
export function hasFailingCheck(ci: CiRecords, sha: string): boolean {
  return (
    ci.latestStatusesOf(sha).some((status) => status.state === "failure" || status.state === "error") ||
    ci.checkRunsOf(sha).some((run) => failingConclusions.includes(run.conclusion))
  );
}
