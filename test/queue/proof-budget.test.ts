// The proof planner keeps the bound on retesting (restart-budget.ts): a PR starts testing at most
// TEST_STARTS_PER_HOUR times within any hour, then waits in its place until its oldest start is an hour old.
import { describe, expect, it } from "vitest";
import { nextDeadline, step, type QueueState } from "../../src/queue/index.ts";
import { TEST_STARTS_PER_HOUR } from "../../src/queue/restart-budget.ts";
import { aPr, aQueue, MINUTE, T0 } from "../support/queue-factories.ts";

function starts(state: QueueState, prNumber: number): number {
  return state.prs[prNumber]!.history.filter((one) => one.reason === "test_started").length;
}

describe("the proof planner's test budget", () => {
  it("holds a PR restarted over and over after its starts of the hour, and starts it when the hour is over", () => {
    let state = step(
      aQueue({ optimizationMode: "separate_proof", requiredStatuses: ["ci"] }),
      aPr(7),
      T0,
    ).state;
    expect(state.prs[7]?.state).toBe("testing");
    for (let minute = 1; minute <= TEST_STARTS_PER_HOUR; minute++) {
      state = step(state, { type: "restart_requested", prNumber: 7 }, T0 + minute * MINUTE).state;
    }

    expect(starts(state, 7)).toBe(TEST_STARTS_PER_HOUR);
    expect(state.prs[7]?.state).toBe("pending");
    const freesAt = T0 + 60 * MINUTE;
    expect(nextDeadline(state)).toBe(freesAt);
    expect(step(state, { type: "tick" }, freesAt - 1).state.prs[7]?.state).toBe("pending");
    const later = step(state, { type: "tick" }, freesAt).state;
    expect(later.prs[7]?.state).toBe("testing");
    expect(starts(later, 7)).toBe(TEST_STARTS_PER_HOUR + 1);
  });
});
