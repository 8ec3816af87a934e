// The Octokit the service talks to GitHub with: Probot's, with one deadline on every call (the installation
// token requests included), without its throttling and retry plugins.
//
// Throttling spaces every write of the process about a second apart (comments and merges three) through one
// shared limiter, and sleeps out rate limits inside the call: under load merges waited 17–20 s behind commit
// statuses, and one repository's writes behind another's. Retry repeats 5xx answers and 405/409 refusals inside
// the call for up to 14 s, while the queue's lane stands still. The outbox does both jobs without those stalls:
// merges and test branches run in a lane of their own ahead of statuses and comments, a status or comment
// replaced before it was sent is dropped, a failed command is retried later with back-off, and a rate limit's
// `retry-after` postpones that repository's commands while other repositories go on (src/runner/outbox-worker.ts).
// Reads fail at once too: the poller reads again on its next pass, and a request to the API answers 502.
// Writes are paced under GitHub's secondary limits before they are sent (./write-pacing.ts).
import { ProbotOctokit } from "probot";
import { asGitHubFailure } from "../ports/github-failures.ts";
import { type WritePacer, withWritePacing } from "./write-pacing.ts";

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

function paced(fetch: Fetch, pacer: WritePacer | undefined): Fetch {
  return pacer === undefined ? fetch : withWritePacing(fetch, pacer);
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

/** Probot's Octokit, authenticated as the app's installation on a repository. */
export type InstallationOctokit = InstanceType<typeof ProbotOctokit>;

/**
 * `writePacer` keeps the writes under GitHub's secondary limits (./write-pacing.ts): the service passes one; tests
 * that make hundreds of writes a minute to a fake GitHub leave it out.
 */
export function githubOctokit(options: { timeoutMs: number; writePacer?: WritePacer }): typeof ProbotOctokit {
  return ProbotOctokit.plugin(availability).defaults(
    (instance: { request?: { fetch?: Fetch }; throttle?: object }) => ({
      ...instance,
      retry: { enabled: false },
      // Probot adds its own throttle options (a Redis connection when configured): ours must win over them.
      throttle: { ...instance.throttle, enabled: false },
      request: {
        ...instance.request,
        fetch: withDeadline(
          paced(instance.request?.fetch ?? globalThis.fetch, options.writePacer),
          options.timeoutMs,
        ),
      },
    }),
  ) as typeof ProbotOctokit;
}
