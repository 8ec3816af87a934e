// The submission use case on its own: what it tells the queue besides the submission (the head's CI result, the
// targets uploaded for the head), and that a failed read of CI results never keeps a PR out of the queue.
import { describe, expect, it } from "vitest";
import { type QueueState, type StatusReport, step } from "../../src/queue/index.ts";
import { type SubmissionReads, submitPullRequest } from "../../src/queue-commands/submission.ts";
import { aCheckRun, aCommitStatus, aPr, aQueue, T0 } from "../support/queue-factories.ts";

const repo = { owner: "acme", name: "widgets", installationId: 1 };
const pr = { ...aPr(1).pr, open: true, merged: false, draft: false };

function reads(
  ciReports: () => Promise<readonly StatusReport[]>,
  targets?: readonly string[],
): SubmissionReads {
  return {
    branchHead: async () => "main-0",
    ciReports: async () => ciReports(),
    impactedTargets: { findImpactedTargets: async () => targets },
  };
}

const submit = (state: QueueState, found: SubmissionReads, facts = pr) =>
  submitPullRequest(found, { queue: { id: "q", repo, state }, pr: facts, priority: null, noBatch: false });

const headChecksOf = (answer: Awaited<ReturnType<typeof submit>>) =>
  answer.events?.filter((event) => event.type === "pr_head_checks_observed");

describe("submitting a PR", () => {
  it("tells the queue a failure among its head's results, which outweighs the successes", async () => {
    const answer = await submit(
      aQueue(),
      reads(async () => [aCommitStatus(), aCheckRun({ name: "lint", conclusion: "failure" })]),
    );
    expect(answer.events?.map((event) => event.type)).toEqual(["pr_submitted", "pr_head_checks_observed"]);
    expect(headChecksOf(answer)).toEqual([
      { type: "pr_head_checks_observed", prNumber: 1, headSha: "head-1", outcome: "failure" },
    ]);
    // Stepped, the queue keeps it on the PR for its odds.
    const { state } = step(aQueue(), answer.events![0]!, T0);
    expect(step(state, answer.events![1]!, T0).state.prs[1]?.evidence?.headChecks).toEqual({
      headSha: "head-1",
      outcome: "failure",
    });
  });

  it("tells a success only when a result finished and none failed, and nothing while all are pending", async () => {
    const passed = await submit(
      aQueue(),
      reads(async () => [aCommitStatus({ state: "pending" }), aCheckRun()]),
    );
    expect(headChecksOf(passed)).toEqual([expect.objectContaining({ outcome: "success" })]);
    const pending = await submit(
      aQueue(),
      reads(async () => [aCommitStatus({ state: "pending" })]),
    );
    expect(headChecksOf(pending)).toEqual([]);
  });

  it("submits the PR when GitHub cannot say what CI reported", async () => {
    const answer = await submit(
      aQueue(),
      reads(async () => {
        throw new Error("GitHub is unavailable");
      }, ["//app"]),
    );
    expect(answer.refused).toBeUndefined();
    expect(answer.events?.map((event) => event.type)).toEqual(["pr_submitted", "impacted_targets_set"]);
  });

  it("reads no CI result for a PR queued at that head already: the webhooks told it", async () => {
    const { state } = step(aQueue(), aPr(1), T0);
    let asked = 0;
    const answer = await submit(
      state,
      reads(async () => {
        asked++;
        return [aCheckRun({ conclusion: "failure" })];
      }),
    );
    expect(asked).toBe(0);
    expect(headChecksOf(answer)).toEqual([]);
  });

  it("refuses a closed PR, and a new PR while the queue drains, with nothing to step", async () => {
    const none = reads(async () => []);
    expect(await submit(aQueue(), none, { ...pr, open: false, merged: true })).toEqual({
      refused: { code: "pull_request_closed", merged: true },
    });
    expect(await submit(aQueue({}, "draining"), none)).toEqual({ refused: { code: "queue_draining" } });
  });
});
