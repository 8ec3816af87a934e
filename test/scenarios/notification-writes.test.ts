// GitHub counts every status and comment write against the app's secondary limits, and people only notice news that
// lasts: a PR's notifications wait while its queue's merges run, so "tests passed; waiting to merge", replaced a
// moment later by "merged", is never written, and the PR's page shows the same news as before. A course with no
// news (queued, tested once, merged) shows on the commit status alone: a comment would notify everyone watching
// the PR to say it again. A setback posts the comment, which is then kept up to date to the end.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { repoRef as repo, recordWrites, type Scenario, startScenario } from "../support/queue-scenario.ts";
import type { GitHubWrite } from "../support/queue-scenario.ts";

describe("notification writes", () => {
  let s: Scenario;
  let writes: GitHubWrite[];
  beforeEach(async () => {
    const recorder = recordWrites();
    writes = recorder.writes;
    s = await startScenario({ whileAppWaits: recorder.whileAppWaits });
  });
  afterEach(async () => {
    expect(s.fake.unhandled).toEqual([]);
    await s.close();
  });

  /** A queue testing in batches of two, and PRs #1 and #2 submitted to it. */
  async function twoPrsInOneBatch(): Promise<void> {
    await s.api("createQueue", {
      repo,
      targetBranch: "main",
      requiredStatuses: ["ci"],
      batch: true,
      batchingMinSize: 2,
    });
    await s.submitPullRequests([1, 2]);
  }

  it("a batch's PRs show their course on their status only: queued, testing, then merged without a write in between", async () => {
    await twoPrsInOneBatch();
    await s.settle();
    const { testRunId } = (
      await s.api("getSubmittedPullRequest", { repo, targetBranch: "main", pr: { number: 1 } })
    ).body;
    const run = (await s.api("getMergeQueueTestingDetails", { repo, targetBranch: "main", testRunId })).body;
    // #1 waited for the batch to fill: its status says it is testing now. No comment: nothing but routine yet.
    const statusesOf1 = writes
      .filter((write) => write.path === `/statuses/${s.repo.pullRequest(1).headSha}`)
      .map((write) => write.body.description);
    expect(statusesOf1).toEqual([
      expect.stringMatching(/^Queued at position 1/),
      `Testing in run ${testRunId}`,
    ]);
    expect(writes.filter((write) => write.path.includes("/comments"))).toEqual([]);
    writes.length = 0;
    s.repo.reportStatus(run.testBranchSha, "ci", "success");
    await s.settle();

    for (const number of [1, 2]) {
      expect(s.repo.pullRequest(number).merged).toBe(true);
      const head = s.repo.pullRequest(number).headSha;
      const statuses = writes
        .filter((write) => write.path === `/statuses/${head}`)
        .map((write) => write.body.description);
      expect(statuses).toEqual(["Merged by the merge queue"]);
      expect(s.repo.comments(number)).toEqual([]);
    }
    expect(writes.filter((write) => write.path.includes("/comments"))).toEqual([]);
  });

  it("a setback posts the comment, which says where progress shows and is edited at the end", async () => {
    await twoPrsInOneBatch();
    await s.settle();
    const testedSha = async (number: number) => {
      const { testRunId } = (
        await s.api("getSubmittedPullRequest", { repo, targetBranch: "main", pr: { number } })
      ).body;
      return (await s.api("getMergeQueueTestingDetails", { repo, targetBranch: "main", testRunId })).body
        .testBranchSha as string;
    };
    // The batch fails: both PRs are tested again apart, news for their comments.
    s.repo.reportStatus(await testedSha(1), "ci", "failure");
    await s.settle();
    const [posted] = s.repo.comments(1);
    expect(posted?.body).toContain("Its progress shows on its `Switchyard Merge Queue (main)` check");
    writes.length = 0;

    // CI passes from now on (the failure was flaky): the runs of the bisection land them.
    for (let round = 0; round < 6 && !s.repo.pullRequest(1).merged; round++) {
      for (const number of [1, 2]) s.repo.reportStatus(await testedSha(number), "ci", "success");
      await s.settle();
    }
    expect(s.repo.pullRequest(1).merged).toBe(true);
    expect(s.repo.comments(1)).toEqual([expect.objectContaining({ id: posted!.id })]);
    expect(s.repo.comments(1)[0]?.body).toContain("**Merged**");
    expect(writes.filter((write) => write.path.includes("/issues/1/comments"))).toEqual([]);
  });
});
