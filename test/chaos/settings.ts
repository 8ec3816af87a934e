// Every size, rate and time limit of the fault-injection test, in one place. A few can be changed from the
// environment (CHAOS_*) to try a shorter or longer run by hand; CI runs the defaults.
const fromEnv = (name: string, fallback: number): number => {
  const raw = process.env[name];
  return raw === undefined || raw === "" ? fallback : Number(raw);
};

import type { OutageKind } from "../../src/sandbox/github-server.ts";

export type { OutageKind };

export interface ChaosSettings {
  readonly repositories: readonly string[];
  readonly pullRequests: number;
  readonly trafficMs: number;
  readonly drainMs: number;
  readonly commentShare: number;
  readonly commandPatienceMs: number;
  readonly queue: { readonly mode: string; readonly concurrency: number; readonly mergeMethod: string };
  readonly requiredStatuses: readonly [status: string, checkRun: string];
  readonly ci: {
    readonly brokenShare: number;
    readonly flakeRate: number;
    readonly minDelayMs: number;
    readonly maxDelayMs: number;
  };
  readonly mergeabilityPendingReads: number;
  readonly webhooks: {
    readonly duplicateRate: number;
    readonly dropRate: number;
    readonly maxReorderMs: number;
  };
  readonly logLevel: string;
  readonly pollIntervalSeconds: number;
  readonly tickMs: number;
  readonly replicas: {
    readonly killEveryMs: { readonly sqlite: number; readonly postgres: number };
    readonly startTimeoutMs: number;
  };
  readonly outages: {
    readonly everyMs: number;
    readonly kinds: readonly OutageKind[];
    readonly durationMs: number;
  };
  readonly limits: {
    readonly stallMarginMs: number;
    readonly liveDataGrowthBytes: number;
  };
}

export const chaosSettings: ChaosSettings = {
  /** Queues: one per repository, each with its own target branch `main`. */
  repositories: ["acme/anvil", "acme/bellows", "acme/crucible", "acme/dynamo", "acme/ember"],
  pullRequests: fromEnv("CHAOS_PULL_REQUESTS", 200),
  /** Submissions are spread over this long; the faults and kills run while they do. */
  trafficMs: fromEnv("CHAOS_TRAFFIC_MS", 60_000),
  /** After the traffic, how long the queues get to finish before the run is judged. */
  drainMs: fromEnv("CHAOS_DRAIN_MS", 60_000),
  /** Half the PRs are submitted with a `/merge` comment, the others through POST /v1/submitPullRequest. */
  commentShare: 0.5,
  /** A person whose `/merge` got no reaction after this long comments `/merge` again. */
  commandPatienceMs: 20_000,
  queue: { mode: "single", concurrency: 3, mergeMethod: "merge_commit" },
  /** The contexts CI reports and the queue requires: a commit status and a check run. */
  requiredStatuses: ["ci/build", "tests"],
  ci: {
    /** A PR whose change breaks the build: every run holding it fails. */
    brokenShare: 0.08,
    /** A run that fails once for no reason of its own. */
    flakeRate: 0.05,
    minDelayMs: 300,
    maxDelayMs: 2_000,
  },
  /** GitHub's `mergeable` is null for the first reads of every PR (still computing). */
  mergeabilityPendingReads: 2,
  webhooks: {
    duplicateRate: 0.1,
    dropRate: 0.05,
    /** Each delivery waits up to this long, so deliveries overtake each other. */
    maxReorderMs: 500,
  },
  /** The replicas' LOG_LEVEL: what they print is shown when the test fails. */
  logLevel: process.env.CHAOS_LOG_LEVEL ?? "warn",
  /** The service's POLL_INTERVAL_SECONDS (its minimum). */
  pollIntervalSeconds: 5,
  /** The scheduler's tick, fixed in the service (src/app.ts). */
  tickMs: 5_000,
  replicas: {
    /** A replica is killed with SIGKILL this often, and started again at once. */
    killEveryMs: { sqlite: 12_000, postgres: 6_000 },
    startTimeoutMs: 30_000,
  },
  outages: {
    /** One outage starts this often during the traffic, of the kinds in turn. */
    everyMs: 12_000,
    kinds: ["500", "502", "rate-limit", "hang"],
    durationMs: 4_000,
  },
  limits: {
    /**
     * The longest a queue with work may go without progress is the poll interval + the longest GitHub outage
     * + the longest time no replica was up (SQLite's one replica restarting) + a scheduler tick + CI's slowest
     * answer + this margin.
     */
    stallMarginMs: 3_000,
    /**
     * The data the measured replica's JavaScript holds after a full garbage collection (compiled code left out)
     * may grow by over the run: the bounded caches (queue states, read answers, pooled connections) filling up.
     * Measured: 29 → 33–34 MiB on either database with 200 PRs, and 29 → 34 MiB with 400 (CHAOS_PULL_REQUESTS=400,
     * CHAOS_TRAFFIC_MS=120000): it does not grow with the traffic. A leak of 36 KiB per PR, or of 1.2 KiB per
     * webhook delivery (about 6,000 a run), goes over.
     */
    liveDataGrowthBytes: 12 * 1024 * 1024,
  },
};
