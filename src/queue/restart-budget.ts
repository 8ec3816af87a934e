// A bound on retesting, whatever causes it: a PR starts testing at most TEST_STARTS_PER_HOUR times within any
// hour. Every start builds a test branch on GitHub (several API writes) and takes CI. A cause that keeps sending a
// PR back (a target GitHub keeps refusing to move, a branch someone keeps pushing to, a fault not foreseen) then
// costs a few test branches an hour, never an unbounded stream: past its budget the PR waits, in its place,
// until its oldest start of the hour is an hour old. Causes that end (PRs ahead failing or leaving) rarely reach it.
import type { PullRequestEntry, QueueState } from "./state.ts";

export const TEST_STARTS_PER_HOUR = 6;
const HOUR_MS = 60 * 60 * 1000;

/** When the PR may start testing again: -Infinity while it has starts left within the hour. */
function budgetFreesAt(pr: PullRequestEntry): number {
  const starts = pr.history.filter((step) => step.reason === "test_started").map((step) => step.at);
  const oldestCounted = starts.at(-TEST_STARTS_PER_HOUR);
  return starts.length < TEST_STARTS_PER_HOUR || oldestCounted === undefined
    ? -Infinity
    : oldestCounted + HOUR_MS;
}

/** When every one of the PRs may start testing again (in the past, or -Infinity, when they may now). */
export function testBudgetFreesAt(state: QueueState, prNumbers: readonly number[]): number {
  return Math.max(
    -Infinity,
    ...prNumbers.map((prNumber) => {
      const pr = state.prs[prNumber];
      return pr === undefined ? -Infinity : budgetFreesAt(pr);
    }),
  );
}
