// The Octokit the app's GitHub clients are built from: Probot's, without its throttling and retry plugins.
//
// Throttling spaces every write of the process about a second apart (comments and merges three) through one
// shared limiter, and sleeps out rate limits inside the call: under load merges waited 17–20 s behind commit
// statuses, and one repository's writes behind another's. Retry repeats 5xx answers and 405/409 refusals inside
// the call for up to 14 s, while the queue's lane stands still. The outbox does both jobs without those stalls:
// merges and test branches run in a lane of their own ahead of statuses and comments, a status or comment
// replaced before it was sent is dropped, a failed command is retried later with back-off, and a rate limit's
// `retry-after` postpones that repository's commands while other repositories go on (src/runner/outbox-worker.ts).
// Reads fail at once too: the poller reads again on its next pass.
import { ProbotOctokit } from "probot";

export const SwitchyardOctokit = ProbotOctokit.defaults((options: Record<string, unknown>) => ({
  ...options,
  retry: { ...(options.retry as object | undefined), enabled: false },
  // Probot adds its own throttle options (a Redis connection when configured): ours must win over them.
  throttle: { ...(options.throttle as object | undefined), enabled: false },
}));
