// GitHub's failures as answers of the API (docs/api.md#errors): a request that needed GitHub says which call failed and
// whether asking again later can help, instead of a 500.
import {
  callOf,
  classifyGitHubFailure,
  GitHubUnavailable,
  githubMessage,
  rateLimitedUntil,
} from "../ports/github-failures.ts";
import { Problem } from "./problem.ts";

interface OctokitFailure {
  status?: unknown;
  request?: { method?: string; url?: string };
}

/** Whether the error is an answer (or the lack of one) from GitHub that no route handled. */
function fromGitHub(error: unknown): boolean {
  if (error instanceof GitHubUnavailable) return true;
  const { status, request } = error as OctokitFailure;
  return typeof status === "number" && typeof request?.url === "string";
}

/** The Problem for a GitHub failure, or undefined when the error did not come from GitHub. */
export function githubProblem(error: unknown, now: number): Problem | undefined {
  if (!fromGitHub(error)) return undefined;
  switch (classifyGitHubFailure(error)) {
    case "unavailable":
      return new Problem(502, "github_unavailable", (error as Error).message);
    case "rate_limited": {
      const until = rateLimitedUntil(error, now);
      const problem = new Problem(
        503,
        "github_rate_limited",
        `GitHub rate-limited ${callOf(error)}; try again later`,
      );
      if (until !== undefined) problem.retryAfterSeconds = Math.max(1, Math.ceil((until - now) / 1000));
      return problem;
    }
    case "refused":
      return new Problem(
        502,
        "github_refused",
        `GitHub refused ${callOf(error)} (${(error as OctokitFailure).status}): ${githubMessage(error)}`,
      );
  }
}

/**
 * The answer of a queue endpoint before the GitHub App is registered (setup mode): the queue acts on GitHub through
 * the app, so the detail says how to register it. Test health and the pages need no app and answer as usual.
 */
export function githubAppNotRegistered(config: { publicUrl: string }): Problem {
  return new Problem(
    503,
    "github_app_not_registered",
    `the merge queue needs the Switchyard GitHub App, which is not registered yet: open ${config.publicUrl}/ in a ` +
      "browser and follow the setup page (or set APP_ID, PRIVATE_KEY and WEBHOOK_SECRET), then restart the " +
      "service. Test health (/v1/flaky-tests/…) works without it.",
  );
}
