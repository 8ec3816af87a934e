// A bound on retesting, whatever causes it: a PR is tested at most TEST_STARTS_PER_HOUR times within any hour.
// Every test start builds a test branch on GitHub (several API writes) and takes CI; a cause that keeps sending
// a PR back to be tested again (a target that GitHub keeps refusing to move, a branch someone keeps pushing to,
// a fault not foreseen) must end in a failure that says so, never in an unbounded stream of test branches.
import { removeFromQueue } from "./abandonment.ts";
import type { QueueDraft } from "./draft.ts";
import type { PullRequestEntry, StateReason } from "./state.ts";
import { isWaiting } from "./state.ts";

export const TEST_STARTS_PER_HOUR = 6;
const HOUR_MS = 60 * 60 * 1000;
/** Waiting steps that are no requeue. */
const firstSteps: ReadonlySet<StateReason> = new Set(["submitted", "ready", "awaiting_readiness"]);

/** When the PR started testing within the hour before `now`. */
function startsWithinHour(pr: PullRequestEntry, now: number): number[] {
  return pr.history
    .filter((step) => step.reason === "test_started" && step.at > now - HOUR_MS)
    .map((step) => step.at);
}

export function hasTestBudget(pr: PullRequestEntry, now: number): boolean {
  return startsWithinHour(pr, now).length < TEST_STARTS_PER_HOUR;
}

/**
 * Fails the PRs of a run about to start that spent their budget, each saying why (and its latest requeue
 * reason, which is what kept sending it back); true when any did, and the run must not start.
 */
export function stopOverBudget(draft: QueueDraft, prNumbers: readonly number[]): boolean {
  const spent = prNumbers.filter((prNumber) => {
    const pr = draft.pr(prNumber);
    return pr !== undefined && !hasTestBudget(pr, draft.now);
  });
  for (const prNumber of spent) {
    const pr = draft.pr(prNumber) as PullRequestEntry;
    const lastRequeue = pr.history.findLast(
      (step) => isWaiting(step.state) && step.at > draft.now - HOUR_MS && !firstSteps.has(step.reason),
    );
    const why = lastRequeue === undefined ? "" : ` The last time: ${lastRequeue.detail}`;
    removeFromQueue(draft, prNumber, {
      to: "failed",
      reason: "restart_limit",
      detail: `Tested ${TEST_STARTS_PER_HOUR} times within an hour without landing: stopped, so that it cannot keep building test branches.${why}`,
    });
  }
  return spent.length > 0;
}
