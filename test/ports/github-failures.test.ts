import { RequestError } from "@octokit/request-error";
import { describe, expect, it } from "vitest";
import {
  asGitHubFailure,
  classifyGitHubFailure,
  GitHubUnavailable,
  githubMessage,
  isTransient,
  rateLimitedUntil,
} from "../../src/ports/github-failures.ts";

const request = {
  method: "PUT" as const,
  url: "https://api.github.com/repos/acme/widgets/pulls/1/merge",
  headers: {},
};

function answered(status: number, message: string, headers: Record<string, string> = {}): RequestError {
  const data = { message, documentation_url: "https://docs.github.com/rest" };
  return new RequestError(`${message} - https://docs.github.com/rest`, status, {
    request,
    response: { status, url: request.url, headers, data },
  });
}

describe("GitHub's failures", () => {
  it.each([
    [answered(405, "Pull Request is not mergeable"), "refused"],
    [answered(409, "Head branch was modified"), "refused"],
    [answered(422, "Validation Failed"), "refused"],
    [answered(403, "Resource not accessible by integration"), "refused"],
    [answered(403, "You have exceeded a secondary rate limit", { "retry-after": "60" }), "rate_limited"],
    [answered(403, "API rate limit exceeded", { "x-ratelimit-remaining": "0" }), "rate_limited"],
    [answered(429, "Too many requests"), "rate_limited"],
    [answered(500, "Server Error"), "unavailable"],
    [answered(502, "Bad Gateway"), "unavailable"],
    [new RequestError("no answer within 10000 ms", 500, { request }), "unavailable"],
  ] as const)("%s is %s", (error, kind) => {
    expect(classifyGitHubFailure(error)).toBe(kind);
    // The outbox retries exactly what is not a refusal.
    expect(isTransient(error)).toBe(kind !== "refused");
  });

  it("a rate limit says until when the outbox waits: retry-after, else the primary limit's reset", () => {
    const now = Date.parse("2026-11-21T10:00:00Z");
    const secondary = answered(403, "You have exceeded a secondary rate limit", { "retry-after": "60" });
    expect(rateLimitedUntil(secondary, now)).toBe(now + 60_000);
    const reset = String(now / 1000 + 600);
    const primary = answered(403, "API rate limit exceeded", {
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset": reset,
    });
    expect(rateLimitedUntil(primary, now)).toBe(now + 600_000);
    // Unsaid: the outbox backs off as after any failure.
    expect(rateLimitedUntil(answered(429, "Too many requests"), now)).toBeUndefined();
    expect(rateLimitedUntil(answered(502, "Bad Gateway"), now)).toBeUndefined();
  });

  it("a refusal keeps GitHub's own message, without the documentation link", () => {
    expect(githubMessage(answered(405, "Pull Request is not mergeable"))).toBe(
      "Pull Request is not mergeable",
    );
  });

  it("out of reach becomes GitHubUnavailable naming the call; anything else stays as it was", () => {
    const timedOut = asGitHubFailure(new RequestError("no answer within 10000 ms", 500, { request }));
    expect(timedOut).toBeInstanceOf(GitHubUnavailable);
    expect(timedOut).toMatchObject({
      call: "PUT /repos/acme/widgets/pulls/1/merge",
      status: undefined,
      message:
        "GitHub is unavailable: PUT /repos/acme/widgets/pulls/1/merge failed: no answer within 10000 ms",
    });
    expect(asGitHubFailure(answered(503, "Unavailable"))).toMatchObject({ status: 503 });
    const refused = answered(405, "Pull Request is not mergeable");
    expect(asGitHubFailure(refused)).toBe(refused);
  });
});
