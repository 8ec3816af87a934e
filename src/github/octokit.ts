// The Octokit the service talks to GitHub with: Probot's, with one deadline on every call (the installation
// token requests included) and no silent retries. Probot's retry plugin waited 14 s before giving up on a
// merge GitHub had already refused; what is worth trying again is retried by the outbox (commands) and the
// poller (reads), and a request to the API fails fast with 502 instead.
import { ProbotOctokit } from "probot";
import { asGitHubFailure } from "./errors.ts";

type Fetch = typeof globalThis.fetch;

/** `fetch` that gives up after `timeoutMs`, even when the underlying fetch ignores its abort signal. */
function withDeadline(fetch: Fetch, timeoutMs: number): Fetch {
  return (input, init) => {
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    const timedOut = () => new Error(`no answer within ${timeoutMs} ms`);
    return new Promise<Response>((resolve, reject) => {
      const onDeadline = () => reject(timedOut());
      deadline.addEventListener("abort", onDeadline, { once: true });
      fetch(input, { ...init, signal })
        .then(resolve, (error: unknown) => reject(deadline.aborted ? timedOut() : error))
        .finally(() => deadline.removeEventListener("abort", onDeadline));
    });
  };
}

/** Failures of GitHub itself surface as GitHubUnavailable, naming the call. */
function availability(octokit: {
  hook: { error: (name: "request", hook: (error: unknown) => never) => void };
}) {
  octokit.hook.error("request", (error) => {
    throw asGitHubFailure(error);
  });
  return {};
}

export function githubOctokit(options: { timeoutMs: number }): typeof ProbotOctokit {
  return ProbotOctokit.plugin(availability).defaults((instance: { request?: { fetch?: Fetch } }) => ({
    ...instance,
    retry: { enabled: false },
    request: {
      ...instance.request,
      fetch: withDeadline(instance.request?.fetch ?? globalThis.fetch, options.timeoutMs),
    },
  })) as typeof ProbotOctokit;
}
