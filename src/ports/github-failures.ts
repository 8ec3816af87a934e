// How the service reads GitHub's failures: GitHub out of reach (no answer in time, or a 5xx), rate limited, or
// a refusal that states a fact (a 4xx about the PR or the repository, which asking again will not change).

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

type GitHubError = { status?: number; response?: { headers?: Record<string, string | undefined> } };

/** A failure worth trying again later (GitHub unreachable, 5xx, rate limited). */
export function isTransient(error: unknown): boolean {
  const status = (error as GitHubError).status;
  return status === undefined || status >= 500 || isRateLimited(error);
}

/**
 * GitHub's rate limits: 429, or 403 with a secondary limit's `retry-after` (seconds) or the primary limit's
 * `x-ratelimit-remaining: 0` (then `x-ratelimit-reset`, epoch seconds, says until when).
 */
export function isRateLimited(error: unknown): boolean {
  const { status, response } = error as GitHubError;
  const headers = response?.headers ?? {};
  return (
    status === 429 ||
    (status === 403 && (headers["retry-after"] !== undefined || headers["x-ratelimit-remaining"] === "0"))
  );
}

/** When GitHub allows requests again after a rate-limit answer (epoch ms), or undefined if it did not say. */
export function rateLimitedUntil(error: unknown, now: number): number | undefined {
  if (!isRateLimited(error)) return undefined;
  const headers = (error as GitHubError).response?.headers ?? {};
  const number = (name: string) => {
    const value = Number(headers[name] ?? Number.NaN);
    return Number.isFinite(value) ? value : undefined;
  };
  const retryAfterSeconds = number("retry-after");
  if (retryAfterSeconds !== undefined) return now + retryAfterSeconds * 1000;
  const resetSeconds = number("x-ratelimit-reset");
  return resetSeconds === undefined ? undefined : Math.max(now, resetSeconds * 1000);
}
