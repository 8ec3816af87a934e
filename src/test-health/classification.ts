// Classification and quarantine (docs/test-health.md#classification, #quarantine), as pure functions of a test's
// recent runs.

/** How one execution of a test ended. */
export type TestOutcome = "passed" | "failed" | "skipped";

export type HealthStatus = "healthy" | "flaky" | "broken";

export interface Classification {
  value: HealthStatus;
  /** One human sentence naming the evidence. */
  reason: string;
}

/** One stored result of a test. `timestamp` is the upload's `started_at`, never a time read from the XML. */
export interface TestRun {
  outcome: TestOutcome;
  commitSha: string;
  branch: string;
  timestamp: Date;
}

const HOUR_MS = 3600 * 1000;
export const CLASSIFICATION_WINDOW_MS = 7 * 24 * HOUR_MS;
const RECENT_WINDOW_MS = 24 * HOUR_MS;
const BROKEN_STREAK = 3;
const BROKEN_RECENT_MIN_RUNS = 5;
const BROKEN_RECENT_FAILURE_PERCENT = 80;

/** Stable branches (docs/test-health.md#classification): the repo's default branch (`main` while GitHub has not told it) and the queues' target branches. */
export function stableBranchesOf(defaultBranch: string | null, queueBranches: Iterable<string>): Set<string> {
  return new Set([defaultBranch ?? "main", ...queueBranches]);
}

interface BranchTally {
  branch: string;
  failed: number;
  passed: number;
  /** Failures since the branch's last pass. */
  failureStreak: number;
  lastFailure: TestRun | null;
}

interface CommitTally {
  lastFailure: TestRun | null;
  lastPass: TestRun | null;
}

/**
 * Classifies a test from its runs (in any order; skipped runs and runs older than the 7-day window are ignored).
 * Runs with equal timestamps keep their given order, which matters for the re-runs of one upload.
 *
 * - broken: the latest runs in the window on stable branches are 3 or more failures in a row, counted over the
 *   stable branches together (a test failing on every stable branch it runs on) or on one of them (a test broken
 *   on a release branch while it passes on main); or at least 80% of at least 5 runs on stable branches in the
 *   last 24 hours failed.
 * - flaky (when not broken): in the window, one commit has both a failed and a passed run (on any branches), or
 *   one stable branch has both.
 * - healthy otherwise.
 *
 * A reason names the branches it counted and the commit of the latest failure it counted (contract: "failed the
 * last 4 runs on main"), so a reader knows where to look. Runs stamped after `now` (a client's clock ahead of ours) count as recent. O(runs) when the runs come sorted.
 */
export function classifyTest(
  runs: readonly TestRun[],
  context: { stableBranches: ReadonlySet<string>; now: Date },
): Classification {
  const now = context.now.getTime();
  const windowStart = now - CLASSIFICATION_WINDOW_MS;
  const recentStart = now - RECENT_WINDOW_MS;
  const branches = new Map<string, BranchTally>();
  const commits = new Map<string, CommitTally>();
  let total = 0;
  let failed = 0;
  let recentStable = 0;
  let recentStableFailed = 0;
  const recentStableBranches = new Set<string>();
  let lastRecentStableFailure: TestRun | null = null;
  // The failures on stable branches since the last pass on any of them.
  const stableStreak: { failures: number; branches: Set<string>; last: TestRun | null } = {
    failures: 0,
    branches: new Set(),
    last: null,
  };

  for (const run of chronological(runs)) {
    const time = run.timestamp.getTime();
    if (run.outcome === "skipped" || time < windowStart) continue;
    const isFailure = run.outcome === "failed";
    total++;
    if (isFailure) failed++;

    if (run.commitSha !== "") {
      let commit = commits.get(run.commitSha);
      if (commit === undefined) {
        commit = { lastFailure: null, lastPass: null };
        commits.set(run.commitSha, commit);
      }
      if (isFailure) commit.lastFailure = run;
      else commit.lastPass = run;
    }

    if (!context.stableBranches.has(run.branch)) continue;
    let branch = branches.get(run.branch);
    if (branch === undefined) {
      branch = { branch: run.branch, failed: 0, passed: 0, failureStreak: 0, lastFailure: null };
      branches.set(run.branch, branch);
    }
    if (isFailure) {
      branch.failed++;
      branch.failureStreak++;
      branch.lastFailure = run;
      stableStreak.failures++;
      stableStreak.branches.add(run.branch);
      stableStreak.last = run;
    } else {
      branch.passed++;
      branch.failureStreak = 0;
      stableStreak.failures = 0;
      stableStreak.branches.clear();
    }
    if (time >= recentStart) {
      recentStable++;
      recentStableBranches.add(run.branch);
      if (isFailure) {
        recentStableFailed++;
        lastRecentStableFailure = run;
      }
    }
  }

  const streak = longestFailureStreak(branches.values());
  if (
    streak !== null &&
    streak.failureStreak >= BROKEN_STREAK &&
    streak.failureStreak >= stableStreak.failures
  ) {
    return {
      value: "broken",
      reason: `failed the last ${streak.failureStreak} runs on ${streak.branch}${latestOn(streak.lastFailure)}`,
    };
  }
  if (stableStreak.failures >= BROKEN_STREAK) {
    const where = branchList(stableStreak.branches);
    return {
      value: "broken",
      reason: `failed the last ${stableStreak.failures} runs on ${where}${latestOn(stableStreak.last)}`,
    };
  }
  if (
    recentStable >= BROKEN_RECENT_MIN_RUNS &&
    // In integers: 0.8 * 15 is 12.000000000000002 in floating point.
    recentStableFailed * 100 >= BROKEN_RECENT_FAILURE_PERCENT * recentStable
  ) {
    return {
      value: "broken",
      reason: `failed ${recentStableFailed} of ${recentStable} runs on ${branchList(recentStableBranches)} in the last 24 hours${latestOn(lastRecentStableFailure)}`,
    };
  }

  const flakyCommit = latestFlakyCommit(commits);
  if (flakyCommit !== null) return { value: "flaky", reason: describeFlakyCommit(flakyCommit) };
  const flakyBranch = latestFlakyBranch(branches.values());
  if (flakyBranch !== null) {
    const runsOnBranch = flakyBranch.failed + flakyBranch.passed;
    return {
      value: "flaky",
      reason: `failed ${flakyBranch.failed} of ${runsOnBranch} runs on ${flakyBranch.branch} in the last 7 days${latestOn(flakyBranch.lastFailure)}`,
    };
  }
  return { value: "healthy", reason: describeHealthy(total, failed) };
}

/**
 * The classification of every test without a failure in the window, run or not. Its sentence names no count and no
 * time, so it stays true as the window slides until a failure is uploaded: storage keeps such tests as they are
 * instead of rewriting each one on every upload and every hour (classification is incremental: docs/test-health.md#classification).
 */
export const healthyWithoutFailures: Readonly<Classification> = Object.freeze({
  value: "healthy",
  reason: "no failures in the last 7 days",
});

export const quarantineSettings = ["always", "never", "auto"] as const;
export type QuarantineSetting = (typeof quarantineSettings)[number];

/** docs/test-health.md#quarantine: `always` and `never` decide; `auto` quarantines flaky tests when the repo's auto-quarantine is on. */
export function isQuarantined(input: {
  setting: QuarantineSetting;
  autoQuarantine: boolean;
  status: HealthStatus;
}): boolean {
  switch (input.setting) {
    case "always":
      return true;
    case "never":
      return false;
    case "auto":
      // A broken test fails for everyone: hiding it automatically would hide a real regression.
      return input.autoQuarantine && input.status === "flaky";
  }
}

// Stored runs usually arrive sorted; sorting (stably, so that re-runs keep their order) only when they are not
// keeps the common case linear.
function chronological(runs: readonly TestRun[]): readonly TestRun[] {
  for (let index = 1; index < runs.length; index++) {
    const previous = runs[index - 1];
    const current = runs[index];
    if (previous !== undefined && current !== undefined && current.timestamp < previous.timestamp) {
      return [...runs].sort((a, b) => a.timestamp.getTime() - b.timestamp.getTime());
    }
  }
  return runs;
}

function longestFailureStreak(branches: Iterable<BranchTally>): BranchTally | null {
  let best: BranchTally | null = null;
  for (const branch of branches) {
    if (
      best === null ||
      branch.failureStreak > best.failureStreak ||
      (branch.failureStreak === best.failureStreak && isLater(branch.lastFailure, best.lastFailure))
    ) {
      best = branch;
    }
  }
  return best;
}

function latestFlakyCommit(
  commits: Map<string, CommitTally>,
): { sha: string; failure: TestRun; pass: TestRun } | null {
  let best: { sha: string; failure: TestRun; pass: TestRun; at: number } | null = null;
  for (const [sha, { lastFailure, lastPass }] of commits) {
    if (lastFailure === null || lastPass === null) continue;
    const at = Math.max(lastFailure.timestamp.getTime(), lastPass.timestamp.getTime());
    if (best === null || at > best.at) best = { sha, failure: lastFailure, pass: lastPass, at };
  }
  return best;
}

function latestFlakyBranch(branches: Iterable<BranchTally>): BranchTally | null {
  let best: BranchTally | null = null;
  for (const branch of branches) {
    if (branch.failed === 0 || branch.passed === 0) continue;
    if (best === null || isLater(branch.lastFailure, best.lastFailure)) best = branch;
  }
  return best;
}

function isLater(a: TestRun | null, b: TestRun | null): boolean {
  return a !== null && (b === null || a.timestamp > b.timestamp);
}

function describeFlakyCommit({
  sha,
  failure,
  pass,
}: {
  sha: string;
  failure: TestRun;
  pass: TestRun;
}): string {
  const later = failure.timestamp > pass.timestamp ? failure : pass;
  const where =
    failure.branch === pass.branch
      ? `on commit ${shortSha(sha)} on ${failure.branch}`
      : `on commit ${shortSha(sha)} (failed on ${failure.branch}, passed on ${pass.branch})`;
  return `failed and passed ${where} on ${dayOf(later.timestamp)}`;
}

/** Where the latest failure of a reason was seen, so the reason names a commit to look at (when the run had one). */
function latestOn(failure: TestRun | null): string {
  return failure === null || failure.commitSha === ""
    ? ""
    : `, latest on commit ${shortSha(failure.commitSha)}`;
}

function branchList(branches: Iterable<string>): string {
  return [...branches].sort().join(" and ");
}

function shortSha(sha: string): string {
  return sha.slice(0, 7);
}

function describeHealthy(total: number, failed: number): string {
  if (failed === 0) return healthyWithoutFailures.reason;
  return `failed ${failed} of ${plural(total, "run")} in the last 7 days, but never passed on a commit or stable branch where it failed`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

function dayOf(timestamp: Date): string {
  return timestamp.toISOString().slice(0, 10);
}
