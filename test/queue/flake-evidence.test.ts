import { describe, expect, it } from "vitest";
import type { FailingTest } from "../../src/queue/index.ts";
import { EVIDENCE_WAIT_MS, MAX_FLAKY_RETESTS } from "../../src/queue/flake-evidence.ts";
import { nextDeadline } from "../../src/queue/index.ts";
import { renderPrComment } from "../../src/queue/pr-comment.ts";
import { testRunView } from "../../src/presentation/queue-views.ts";
import { aScenario, MINUTE, type QueueScenario } from "../support/queue-factories.ts";

const flaky: FailingTest = { name: "checkout › pays with a card", health: "flaky" };
const quarantined: FailingTest = { name: "search › suggests", health: "quarantined" };
const healthy: FailingTest = { name: "cart › adds an item", health: "healthy" };
const broken: FailingTest = { name: "cart › removes an item", health: "broken" };

/** A JUnit upload on the commit of the run in flight testing `prNumbers`. */
function upload(
  queue: QueueScenario,
  prNumbers: readonly number[],
  failingTests: readonly FailingTest[],
): void {
  queue.createBranches();
  const sha = queue.runTesting(...prNumbers).testBranchSha as string;
  queue.on({ type: "run_failures_explained", sha, failingTests });
}

/** A queue that has had an upload for one of its test branches, so it expects them: #1 merged on the way. */
function queueGettingUploads(settings = {}) {
  const queue = aScenario({ mergeMethod: "merge_commit", ...settings }).submit(1);
  upload(queue, [1], []);
  queue.passRun(1).mergeAll();
  return queue;
}

describe("flake evidence: a run that failed only on known-flaky tests is tested again", () => {
  it("tests the PR again on the same base when the upload came before the failing status", () => {
    const queue = aScenario({ mergeMethod: "merge_commit", concurrency: 2 }).submit(1, 2);
    const first = queue.runOf(1);
    upload(queue, [1], [flaky, quarantined]);

    queue.failRun(1);

    expect(queue.state.runs[first.id]).toMatchObject({ status: "failed", endReason: "flaky_failure" });
    const retest = queue.runOf(1);
    expect(retest.id).not.toBe(first.id);
    expect(retest).toMatchObject({ status: "in_progress", dependsOn: [], baseSha: first.baseSha });
    expect(queue.pr(1).history.map((step) => step.reason)).toContain("flaky_failure");
    expect(queue.pr(1).history.find((step) => step.reason === "flaky_failure")?.detail).toContain(
      "`checkout › pays with a card`, `search › suggests`",
    );
    // The PR behind was built on it: it is tested again behind it, not without it.
    expect(queue.runOf(2).dependsOn).toEqual([1]);
    expect(queue.commandsOf("create_test_branch").map((command) => command.runId)).toEqual([
      retest.id,
      queue.runOf(2).id,
    ]);

    queue.passRun(1).passRun(2).mergeAll();
    expect(queue.stateOf(1)).toBe("merged");
    expect(queue.stateOf(2)).toBe("merged");
  });

  it("builds the retest on a new commit, since CI keeps the failure of the old one", () => {
    const queue = aScenario({ mergeMethod: "merge_commit" }).submit(1);
    const [failedBranch] = queue.commandsOf("create_test_branch");
    upload(queue, [1], [flaky]);
    queue.advance(10);

    queue.failRun(1);

    const [retestBranch] = queue.commandsOf("create_test_branch");
    expect(retestBranch?.baseSha).toBe(failedBranch?.baseSha);
    expect(retestBranch?.prs[0]?.commitDate).not.toBe(failedBranch?.prs[0]?.commitDate);
  });

  it("dates the retest's commit a second later when it starts within the second the failed attempt did", () => {
    const queue = aScenario({ mergeMethod: "merge_commit" }).submit(1);
    const [failedBranch] = queue.commandsOf("create_test_branch");
    upload(queue, [1], [flaky]);

    queue.failRun(1);

    const [retestBranch] = queue.commandsOf("create_test_branch");
    const failedSecond = Math.floor((failedBranch?.prs[0]?.commitDate ?? 0) / 1000);
    expect(Math.floor((retestBranch?.prs[0]?.commitDate ?? 0) / 1000)).toBe(failedSecond + 1);
  });

  it("does not bisect a flaked batch: the same PRs are tested again", () => {
    const queue = aScenario({ batch: true, batchingMinSize: 3, mergeMethod: "merge_commit" }).submit(1, 2, 3);
    upload(queue, [1, 2, 3], [flaky]);

    queue.failRun(1, 2, 3);

    expect(queue.inFlight("side")).toEqual([]);
    expect(queue.inFlight("main")).toEqual([[1, 2, 3]]);
    for (const prNumber of [1, 2, 3]) expect(queue.pr(prNumber).sidelined).toBeUndefined();
  });

  it("sends a bisection run's PRs back to the queue when it failed only on known-flaky tests, as a pass would", () => {
    const queue = aScenario({
      batch: true,
      batchingMinSize: 2,
      optimizationMode: "bisection_skip_redundant_tests",
    }).submit(1, 2);
    upload(queue, [1, 2], [healthy]);
    queue.failRun(1, 2);
    expect(queue.inFlight("side")).toEqual([[1]]);

    upload(queue, [1], [flaky]);
    queue.failRun(1);

    expect(queue.pr(1).history.at(-2)).toMatchObject({ state: "pending", reason: "flaky_failure" });
    expect(queue.pr(1).sidelined).toBeUndefined();
    expect(queue.pr(2)).toMatchObject({ state: "failed", stateReason: "tests_failed" });
  });

  it("counts the failure when a healthy or broken test failed too", () => {
    for (const failing of [[flaky, healthy], [broken]]) {
      const queue = aScenario().submit(1);
      upload(queue, [1], failing);
      queue.failRun(1);
      expect(queue.pr(1)).toMatchObject({ state: "failed", stateReason: "tests_failed" });
    }
  });

  it("adds up the uploads of several shards: one real failure among them is a real failure", () => {
    const queue = aScenario().submit(1);
    upload(queue, [1], [flaky]);
    upload(queue, [1], [healthy]);

    queue.failRun(1);

    expect(queue.pr(1)).toMatchObject({ state: "failed", stateReason: "tests_failed" });
  });

  it(`tests a PR again after flaky failures ${MAX_FLAKY_RETESTS} times at most; the next failure counts`, () => {
    const queue = aScenario().submit(1);
    for (let retest = 0; retest < MAX_FLAKY_RETESTS; retest++) {
      upload(queue, [1], [flaky]);
      queue.failRun(1);
      expect(queue.stateOf(1)).toBe("testing");
    }
    upload(queue, [1], [flaky]);
    queue.failRun(1);

    expect(queue.pr(1)).toMatchObject({ state: "failed", stateReason: "tests_failed" });
    expect(queue.pr(1).stateDetail).toContain(
      `but was tested again for them ${MAX_FLAKY_RETESTS} times already: the failure counts.`,
    );
  });

  it("does not rescue a run that already failed when the queue expected no upload", () => {
    const queue = aScenario().submit(1);
    queue.failRun(1);
    const failed = Object.values(queue.state.runs)[0];

    queue.on({ type: "run_failures_explained", sha: failed?.testBranchSha as string, failingTests: [flaky] });

    expect(queue.pr(1)).toMatchObject({ state: "failed", stateReason: "tests_failed" });
    // Its testing details still name the flaky test.
    expect(queue.state.runs[failed?.id as string]?.failingTests).toEqual([flaky]);
  });
});

describe("flake evidence: the failing status may come before the upload", () => {
  it("holds the failure of a run in a queue that gets uploads, and tests it again once the upload explains it", () => {
    const queue = queueGettingUploads().submit(2, 3);
    const held = queue.runOf(2);
    queue.failRun(2);

    expect(queue.stateOf(2)).toBe("testing");
    expect(queue.state.runs[held.id]?.status).toBe("in_progress");
    expect(nextDeadline(queue.state)).toBe(queue.now + EVIDENCE_WAIT_MS);

    queue.advance(2);
    upload(queue, [2], [flaky]);

    expect(queue.state.runs[held.id]).toMatchObject({ status: "failed", endReason: "flaky_failure" });
    expect(queue.runOf(2).id).not.toBe(held.id);
    queue.passMainLine();
    expect(queue.stateOf(2)).toBe("merged");
    expect(queue.stateOf(3)).toBe("merged");
  });

  it("waits past the run's testing timeout, and asks for a tick at the end of its wait, never before", () => {
    const queue = queueGettingUploads({ testingTimeoutMinutes: 3 }).submit(2);
    queue.failRun(2);
    const waitEnds = queue.now + EVIDENCE_WAIT_MS;

    expect(nextDeadline(queue.state)).toBe(waitEnds);
    queue.tick(3);
    expect(queue.stateOf(2)).toBe("testing");
    expect(nextDeadline(queue.state)).toBe(waitEnds);
  });

  it("fails the run at once when the upload that comes names a healthy failing test", () => {
    const queue = queueGettingUploads().submit(2);
    queue.failRun(2);

    upload(queue, [2], [flaky, healthy]);

    expect(queue.pr(2)).toMatchObject({ state: "failed", stateReason: "tests_failed" });
  });

  it("keeps waiting through an upload without failures (another shard), until its wait ends", () => {
    const queue = queueGettingUploads().submit(2);
    queue.failRun(2);
    queue.advance(1);
    upload(queue, [2], []);
    expect(queue.stateOf(2)).toBe("testing");

    queue.tick(EVIDENCE_WAIT_MS / MINUTE);

    expect(queue.pr(2)).toMatchObject({ state: "failed", stateReason: "tests_failed" });
    expect(queue.pr(2).stateDetail).toContain("No test results explained it within 5 minutes.");
  });

  it("does not learn to wait from uploads on commits that passed, which CI on the target may send", () => {
    const queue = aScenario({ mergeMethod: "merge_commit" }).submit(1);
    const merged = queue.runOf(1);
    queue.passRun(1).mergeAll();
    queue.on({ type: "run_failures_explained", sha: merged.testBranchSha as string, failingTests: [] });
    queue.submit(2);

    queue.failRun(2);

    expect(queue.pr(2)).toMatchObject({ state: "failed", stateReason: "tests_failed" });
  });

  it("does not wait in a queue that has had no upload for a week", () => {
    const queue = queueGettingUploads()
      .advance(7 * 24 * 60)
      .submit(2);

    queue.failRun(2);

    expect(queue.pr(2)).toMatchObject({ state: "failed", stateReason: "tests_failed" });
  });

  it("lets a re-run of the failed check that passes decide the run while it waits", () => {
    const queue = queueGettingUploads().submit(2);
    queue.failRun(2);

    queue.report(2, {
      kind: "check_run",
      name: "ci",
      id: 2,
      status: "completed",
      conclusion: "success",
      url: "https://ci.example/2",
      checkSuiteId: 1,
    });

    expect(queue.stateOf(2)).toBe("tests_passed");
  });
});

describe("flake evidence in what users read", () => {
  it("names the known-flaky tests in the PR comment and the run's testing details", () => {
    const queue = aScenario({ mergeMethod: "merge_commit" }).submit(1);
    const flaked = queue.runOf(1);
    upload(queue, [1], [flaky]);
    queue.failRun(1).passRun(1).mergeAll();

    const comment = renderPrComment(queue.state, queue.pr(1));
    expect(comment).toContain(
      `**Known-flaky failures:** run \`${flaked.id}\` failed only on \`checkout › pays with a card\`; it was tested again.`,
    );
    expect(
      testRunView(queue.state, flaked.id, (n) => `https://github.com/acme/widgets/pull/${n}`),
    ).toMatchObject({
      status: "failed",
      knownFlakyFailures: ["checkout › pays with a card"],
      flakyFailure: true,
    });
  });
});
