// How often the queue's PRs fail, over a memory longer than the hours its state keeps of finished PRs: the
// proof planner lowers the chain's bar only where broken PRs stay rare (failure-odds.ts, brokenPrsRare).
import type { DecisionCounts, PullRequestState, StateReason } from "./state.ts";

/** Each decision weighs this much less than the one after it: the last 50 or so decisions count. */
const DECAY = 1 - 1 / 50;

/** Whether a PR reaching this state was decided: merged, or failed by its tests. */
export function isDecision(to: PullRequestState, reason: StateReason): boolean {
  return to === "merged" || (to === "failed" && (reason === "tests_failed" || reason === "timeout"));
}

/** The counts after one more decision. */
export function countDecision(counts: DecisionCounts | undefined, failed: boolean): DecisionCounts {
  return {
    decided: (counts?.decided ?? 0) * DECAY + 1,
    failed: (counts?.failed ?? 0) * DECAY + (failed ? 1 : 0),
  };
}
