import { describe, expect, it } from "vitest";
import { compact, FINISHED_RETENTION_MS } from "../../src/queue/compaction.ts";
import { step, type QueueState } from "../../src/queue/index.ts";
import { aPr, aQueue, T0 } from "../support/queue-factories.ts";

const later = T0 + FINISHED_RETENTION_MS + 1;

/** PR 1 tested and merged through the whole cycle; PR 2 still queued behind nothing. */
function mergedAndQueued(): QueueState {
  let state = step(aQueue(), aPr(1), T0).state;
  const runId = state.prs[1]!.testRunId!;
  const events = [
    { type: "test_branch_created", runId, sha: "tested-1" },
    {
      type: "status_reported",
      sha: "tested-1",
      report: { kind: "status", name: "ci", id: 1, state: "success", url: "" },
    },
  ] as const;
  for (const event of events) state = step(state, event, T0).state;
  const mergeId = state.merging!.id;
  state = step(state, { type: "merge_succeeded", mergeId, sha: "main-1" }, T0).state;
  return step(state, aPr(2), T0).state;
}

describe("compaction", () => {
  it("keeps everything within the retention, returning the same state", () => {
    const state = mergedAndQueued();
    expect(compact(state, T0 + 1000)).toBe(state);
  });

  it("drops PRs that finished before the retention and the ended runs only they referred to", () => {
    const state = mergedAndQueued();
    expect(state.prs[1]!.state).toBe("merged");
    const mergedRun = state.prs[1]!.testRunId!;
    expect(state.runs[mergedRun]!.branchDeleted).toBe(true);

    const compacted = compact(state, later);
    expect(Object.keys(compacted.prs)).toEqual(["2"]);
    expect(compacted.runs[mergedRun]).toBeUndefined();
    expect(compacted.runs[compacted.prs[2]!.testRunId!]).toBeDefined();
    expect(compacted.line).toEqual(state.line);
  });

  it("a compacted queue goes on as before: a PR submitted again starts a new submission", () => {
    const compacted = compact(mergedAndQueued(), later);
    const again = step(compacted, aPr(1, { submissionId: "sub-1-again" }), later).state;
    expect(again.prs[1]).toMatchObject({
      submissionId: "sub-1-again",
      state: expect.stringMatching(/pending|testing/),
    });
  });
});
