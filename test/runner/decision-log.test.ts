// Every queue decision is one structured log line (pino JSON) naming the repo, branch, queue, PR and run, with
// the reason: what an operator greps for when asking "why did #3 not merge?".
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { repoRef as repo, type Scenario, startScenario } from "../support/queue-scenario.ts";

type LogLine = Record<string, unknown> & { msg: string };

describe("the decision log", () => {
  let s: Scenario;
  let lines: LogLine[];
  beforeEach(async () => {
    lines = [];
    const log = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line)) });
    s = await startScenario({ log });
  });
  afterEach(async () => {
    await s.close();
  });

  const testRunOf = async (number: number): Promise<string> =>
    (await s.api("getSubmittedPullRequest", { repo, targetBranch: "main", pr: { number } })).body.testRunId;
  const ciReports = async (number: number, state: "success" | "failure") => {
    const testRunId = await testRunOf(number);
    const run = (await s.api("getMergeQueueTestingDetails", { repo, targetBranch: "main", testRunId })).body;
    s.repo.reportStatus(run.testBranchSha, "ci", state);
    await s.settle();
  };
  const decisions = (event: string) => lines.filter((line) => line.event === event);

  it("logs runs started, passed and failed, PRs merged, restarted, failed and cancelled, with why", async () => {
    await s.api("createQueue", { repo, targetBranch: "main", concurrency: 2, requiredStatuses: ["ci"] });
    for (const number of [1, 2, 3]) {
      s.repo.openPullRequest({
        number,
        title: `#${number}`,
        author: "alice",
        files: { [`f${number}`]: "x\n" },
      });
      await s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number } });
    }
    await s.settle();
    const [run1, run2] = [await testRunOf(1), await testRunOf(2)];
    await ciReports(1, "success");
    const firstRunOf3 = await testRunOf(3);
    await ciReports(2, "failure");
    const secondRunOf3 = await testRunOf(3);
    await s.api("cancelPullRequest", { repo, targetBranch: "main", pr: { number: 3 } });
    await s.settle();
    await s.api("updateQueue", { repo, targetBranch: "main", state: "paused" });

    const where = { repo: "acme/widgets", branch: "main", queueId: expect.any(String), level: 30 };
    expect(decisions("pr_submitted").map((line) => line.pr)).toEqual([1, 2, 3]);
    expect(decisions("run_started")).toEqual(
      [
        { runId: run1, prs: [1], dependsOn: [] },
        { runId: run2, prs: [2], dependsOn: [1] },
        // #1 passed, its merge still in flight: #3 is tested on top of it and #2.
        { runId: firstRunOf3, prs: [3], dependsOn: [1, 2] },
        { runId: secondRunOf3, prs: [3], dependsOn: [] },
      ].map((run) =>
        expect.objectContaining({
          ...where,
          ...run,
          msg: `test run ${run.runId} started for #${run.prs[0]}`,
        }),
      ),
    );
    expect(decisions("run_passed")).toEqual([
      expect.objectContaining({ ...where, runId: run1, prs: [1], status: "succeeded", reason: "succeeded" }),
    ]);
    expect(decisions("run_failed")).toEqual([
      expect.objectContaining({ ...where, runId: run2, prs: [2], status: "failed", reason: "tests_failed" }),
    ]);
    expect(decisions("run_cancelled").map((line) => [line.runId, line.reason])).toEqual([
      [firstRunOf3, "pr_ahead_failed"],
      [secondRunOf3, "cancelled_by_user"],
    ]);
    expect(decisions("pr_merged")).toEqual([
      expect.objectContaining({ ...where, pr: 1, runId: run1, state: "merged", reason: "merged" }),
    ]);
    expect(decisions("pr_failed")).toEqual([
      expect.objectContaining({ ...where, pr: 2, runId: run2, state: "failed", reason: "tests_failed" }),
    ]);
    // The restart names the run it abandoned; the next line, the run it tests in now.
    const restarted = decisions("pr_restarted");
    expect(restarted).toEqual([
      expect.objectContaining({
        ...where,
        pr: 3,
        runId: firstRunOf3,
        state: "pending",
        reason: "pr_ahead_failed",
      }),
    ]);
    expect(restarted[0]!.msg).toMatch(/^#3 restarted \(pr_ahead_failed\): #2 ahead of it failed/);
    expect(decisions("pr_testing").map((line) => [line.pr, line.runId])).toEqual([
      [1, run1],
      [2, run2],
      [3, firstRunOf3],
      [3, secondRunOf3],
    ]);
    expect(decisions("pr_cancelled")).toEqual([
      expect.objectContaining({
        ...where,
        pr: 3,
        runId: secondRunOf3,
        state: "cancelled",
        reason: "cancelled_by_user",
      }),
    ]);
    expect(decisions("queue_state_changed")).toEqual([
      expect.objectContaining({
        ...where,
        state: "paused",
        previousState: "running",
        msg: "queue running → paused",
      }),
    ]);
    // One line per decision: each PR's submissions, transitions and each run's start and end appear once.
    const keys = lines
      .filter((line) => line.event !== undefined)
      .map((line) => JSON.stringify([line.event, line.pr, line.runId, line.state]));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("logs whether a PR merges directly, or why it is tested instead", async () => {
    await s.api("createQueue", {
      repo,
      targetBranch: "main",
      requiredStatuses: ["ci"],
      directMergeMode: "always",
    });
    for (const number of [1, 2]) {
      s.repo.openPullRequest({
        number,
        title: `#${number}`,
        author: "alice",
        files: { [`f${number}`]: "x\n" },
      });
    }
    s.repo.reportStatus(s.repo.pullRequest(1).headSha, "ci", "success");
    await s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number: 1 } });
    await s.settle();
    await s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number: 2 } });
    await s.settle();

    expect(decisions("pr_direct_merge_checked")).toEqual([
      expect.objectContaining({ pr: 1, direct: true, msg: "#1 merges directly" }),
      expect.objectContaining({
        pr: 2,
        direct: false,
        msg: "#2 is tested: no direct merge, as its head does not contain the head of main",
      }),
    ]);
  });
});
