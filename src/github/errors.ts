// How the service reads GitHub's failures: GitHub out of reach (no answer in time, or a 5xx), rate limited, or
// a refusal that states a fact (a 4xx about the PR or the repository, which asking again will not change).
import { isRateLimited } from "../runner/command-executor.ts";

/** GitHub did not answer a call in time, could not be reached, or answered 5xx. Worth trying again later. */
export class GitHubUnavailable extends Error {
  override readonly name = "GitHubUnavailable";

  constructor(
    /** The call that failed, `METHOD /path`. */
    readonly call: string,
    /** GitHub's answer, when there was one. */
    readonly status: number | undefined,
    reason: string,
    options?: ErrorOptions,
  ) {
    super(`GitHub is unavailable: ${call} ${reason}`, options);
  }
}

interface OctokitFailure {
  status?: number;
  message?: string;
  request?: { method?: string; url?: string };
  response?: { headers?: Record<string, string | undefined>; data?: unknown };
}

export type GitHubFailureKind = "unavailable" | "rate_limited" | "refused";

/**
 * Unavailable and rate limited pass (retry later, after `retry-after` when GitHub gave one); a refusal is a
 * fact about what was asked (405 not mergeable, 409 head moved, 422 invalid…) and stands.
 */
export function classifyGitHubFailure(error: unknown): GitHubFailureKind {
  const { status } = error as OctokitFailure;
  if (error instanceof GitHubUnavailable || status === undefined || status >= 500) return "unavailable";
  return isRateLimited(error) ? "rate_limited" : "refused";
}

/** GitHub's own words for a refusal ("Pull Request is not mergeable"), without the documentation link. */
export function githubMessage(error: unknown): string {
  const data = (error as OctokitFailure).response?.data;
  if (typeof data === "object" && data !== null && "message" in data && typeof data.message === "string")
    return data.message;
  return error instanceof Error ? error.message : String(error);
}

/** `METHOD /path` of the call an Octokit error came from. */
export function callOf(error: unknown): string {
  const { request } = error as OctokitFailure;
  const method = request?.method ?? "GET";
  const url = request?.url;
  return url === undefined ? method : `${method} ${decodeURIComponent(new URL(url).pathname)}`;
}

/** An Octokit failure as the rest of the service sees it: out of reach becomes GitHubUnavailable. */
export function asGitHubFailure(error: unknown): unknown {
  if (error instanceof GitHubUnavailable || classifyGitHubFailure(error) !== "unavailable") return error;
  const failure = error as OctokitFailure;
  const reason =
    failure.response === undefined
      ? `failed: ${error instanceof Error ? error.message : String(error)}`
      : `answered ${failure.status}: ${githubMessage(error)}`;
  const status = failure.response === undefined ? undefined : failure.status;
  return new GitHubUnavailable(callOf(failure), status, reason, { cause: error });
}
