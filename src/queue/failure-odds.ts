// The odds that a PR is broken, from what the queue knows: its recent failure and flake rates, the PR's own
// retest history, and its own CI on its head commit. Pure functions of the state, used by the proof planner to
// size groups (a risky PR alone, safe ones together) and to decide when a PR has failed often enough to fail.
import { observedFailureRate, PRIOR_FAILURE_RATE, PRIOR_WEIGHT } from "./batching.ts";
import type { PrEvidence, PullRequestEntry, QueueState } from "./state.ts";

export const NO_EVIDENCE: PrEvidence = {
  pinnedFailures: 0,
  failedSets: [],
  failedRuns: 0,
  passedRuns: 0,
  headChecks: null,
};

export function evidenceOf(pr: PullRequestEntry): PrEvidence {
  return pr.evidence ?? NO_EVIDENCE;
}

/** Proven: it passed a run and has not left the queue's runs since (a landing run may be retesting it). */
export function isProven(pr: PullRequestEntry): boolean {
  return pr.state === "tests_passed" || (pr.state === "testing" && pr.passingRunId !== null);
}

/** A suspect: a failed run points at it, alone or with others, and it is waiting to be retested. */
export function isSuspect(pr: PullRequestEntry): boolean {
  const evidence = evidenceOf(pr);
  return evidence.pinnedFailures > 0 || evidence.failedSets.length > 0;
}

/** What the queue saw lately: the share of decided PRs that were broken, and of runs that failed by a flake. */
export interface QueueRates {
  readonly failureRate: number;
  readonly flakeRate: number;
}

/** The flake rate a queue assumes before it has seen runs, weighted as this many runs. */
const PRIOR_FLAKE_RATE = 0.05;
const PRIOR_RUNS = 20;
/** Rates are kept away from 0 and 1, where a likelihood ratio would be infinite. */
const FLOOR = 0.01;
const CEILING = 0.5;

function clamp(rate: number): number {
  return Math.min(CEILING, Math.max(FLOOR, rate));
}

/**
 * The share of runs that failed by a flake, among the runs still in the state (the last hours) whose cause is
 * known: a passed run; a failed run whose PRs all passed since or merged (a flake: nothing broken was in it); a
 * failed run one of whose PRs failed for good (explained). A failed run still being narrowed down is left out
 * either way. Smoothed towards PRIOR_FLAKE_RATE while the runs are few.
 */
export function observedFlakeRate(state: QueueState): number {
  let known = 0;
  let flaked = 0;
  for (const run of Object.values(state.runs)) {
    if (run.status === "succeeded") known++;
    if (run.status !== "failed" || (run.endReason !== "tests_failed" && run.endReason !== "timeout"))
      continue;
    const states = run.prs.map((tested) => state.prs[tested.number]?.state);
    if (states.every((one) => one === "merged" || one === "tests_passed")) {
      known++;
      flaked++;
    } else if (states.includes("failed")) known++;
  }
  return (flaked + PRIOR_FLAKE_RATE * PRIOR_RUNS) / (known + PRIOR_RUNS);
}

export function queueRates(state: QueueState): QueueRates {
  return { failureRate: clamp(observedFailureRate(state)), flakeRate: clamp(observedFlakeRate(state)) };
}

/**
 * How much likelier a broken PR's own CI fails than a good one's: a broken PR's own checks are assumed to fail
 * half the time (they may not run what breaks it), a good PR's only by a flake.
 */
const HEAD_FAILURE_GIVEN_BROKEN = 0.5;

/**
 * The probability that the PR is broken: the queue's failure rate, times the likelihood ratio of its own CI
 * result on its current head, times 1/flakeRate for each failed run only it can explain (a good PR fails one only
 * by a flake). A PR that passed a run is proven and has no odds here: passes never lie in this model.
 */
export function probabilityBroken(pr: PullRequestEntry, rates: QueueRates): number {
  const evidence = evidenceOf(pr);
  const { failureRate, flakeRate } = rates;
  let odds = failureRate / (1 - failureRate);
  const head = evidence.headChecks;
  if (head !== null && head.headSha === pr.headSha) {
    odds *=
      head.outcome === "failure"
        ? HEAD_FAILURE_GIVEN_BROKEN / flakeRate
        : (1 - HEAD_FAILURE_GIVEN_BROKEN) / (1 - flakeRate);
  }
  odds *= (1 / flakeRate) ** evidence.pinnedFailures;
  // A run it failed with others still unproven: the odds that they, not it, broke it (docs/queue-policy.md#failure-odds).
  const narrowest = Math.min(...evidence.failedSets.map((set) => set.length));
  if (Number.isFinite(narrowest)) odds /= failsWithoutIt(narrowest - 1, rates);
  return Number.isFinite(odds) ? odds / (1 + odds) : 1;
}

/**
 * The probability that a run of a good PR and `others` unproven PRs fails all the same: one of them is broken
 * (each at the queue's failure rate) or the run flaked. Only the narrowest of a PR's failed sets counts: they
 * nest (a bisection's halves lie in their group), so their failures are not independent, and counting one
 * understates the evidence but never overstates it. Set-aside sets do not count: their other PRs failed
 * elsewhere, so they explain these failures better than the queue's failure rate says.
 */
function failsWithoutIt(others: number, { failureRate, flakeRate }: QueueRates): number {
  return 1 - (1 - flakeRate) * (1 - failureRate) ** others;
}

/**
 * How sure the queue must be before it fails a PR: a good PR is failed only when flakes pinned on it outweigh
 * this, about one in a thousand such decisions at a 5% flake rate and a 10% failure rate (three failures alone).
 */
export const REJECT_CONFIDENCE = 0.995;

/**
 * A PR fails once a run failed that only it explains and the odds that it is broken reach REJECT_CONFIDENCE,
 * judged with a flake rate of at least PRIOR_FLAKE_RATE: a queue that saw few flakes lately may have missed
 * some, and failing a good PR costs its author far more than one more run costs the queue.
 */
export function shouldReject(pr: PullRequestEntry, rates: QueueRates): boolean {
  const cautious = { ...rates, flakeRate: Math.max(rates.flakeRate, PRIOR_FLAKE_RATE) };
  return evidenceOf(pr).pinnedFailures > 0 && probabilityBroken(pr, cautious) >= REJECT_CONFIDENCE;
}

/** Above this a PR is tested alone: with it in a group, the group would likely fail and be split anyway. */
export const RISKY = 0.3;

/** The probability that a run of these unproven PRs (on proven ones) passes. */
export function groupPassProbability(brokenOdds: readonly number[], rates: QueueRates): number {
  return brokenOdds.reduce((pass, p) => pass * (1 - p), 1 - rates.flakeRate);
}

/**
 * The group size that proves the most PRs per run when each is broken with probability p and runs flake at
 * rate f: the b that maximises b·(1−p)^b·(1−f) / (1 + P(fail)·log2(b)/2), a failed group costing about
 * log2(b)/2 runs more to split (each half tested answers for the other half as often as not). At most `limit`.
 */
export function bestGroupSize(p: number, rates: QueueRates, limit: number): number {
  const value = (size: number) => {
    const pass = (1 - p) ** size * (1 - rates.flakeRate);
    return (size * pass) / (1 + ((1 - pass) * Math.log2(size)) / 2);
  };
  let best = 1;
  for (let size = 2; size <= limit; size++) if (value(size) > value(best)) best = size;
  return best;
}

/**
 * Below this share of broken PRs among its recent decisions a queue counts its broken PRs as rare. The share is
 * judged with the failure rate's prior (10%, weighted as 10 PRs): a new queue first decides a dozen PRs without a
 * failure, and once it has decided about 50, two failures among them end it.
 */
const RARE_RATE = 0.05;

/**
 * Whether broken PRs are rare in this queue lately (decisions.ts keeps the counts of its last 50 or so
 * decisions): the failures such a queue sees are mostly flakes, which a retest clears.
 */
export function brokenPrsRare(state: QueueState, rates: QueueRates): boolean {
  // PRs that failed runs and wait to be decided count by their odds: a broken PR is decided hours after the good
  // ones that came with it, and a queue that counted its merges alone would think its broken PRs rare meanwhile.
  let suspects = 0;
  let suspected = 0;
  for (const prNumber of state.line) {
    const pr = state.prs[prNumber];
    if (pr === undefined || isProven(pr) || !isSuspect(pr)) continue;
    suspects++;
    suspected += probabilityBroken(pr, rates);
  }
  const decided = (state.decisions?.decided ?? 0) + suspects;
  const failed = (state.decisions?.failed ?? 0) + suspected;
  return (failed + PRIOR_FAILURE_RATE * PRIOR_WEIGHT) / (decided + PRIOR_WEIGHT) < RARE_RATE;
}
