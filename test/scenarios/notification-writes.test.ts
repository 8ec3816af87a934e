// GitHub counts every status and comment write against the app's secondary limits, and people only notice news that
// lasts: a PR's notifications wait while its queue's merges run, so "tests passed; waiting to merge", replaced a
// moment later by "merged", is never written, and the PR's page shows the same news as before. Routine progress
// (its first run starting) shows on the commit status alone: the comment is not edited to say it again.
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

  it("a batch's PRs show testing on their status only, then go to merged without a status or comment in between", async () => {
    await s.api("createQueue", {
      repo,
      targetBranch: "main",
      requiredStatuses: ["ci"],
      batch: true,
      batchingMinSize: 2,
    });
    for (const number of [1, 2]) {
      s.repo.openPullRequest({
        number,
        title: `Change ${number}`,
        author: "alice",
        files: { [`src/${number}.ts`]: "x" },
      });
      await s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number } });
    }
    await s.settle();
    const { testRunId } = (
      await s.api("getSubmittedPullRequest", { repo, targetBranch: "main", pr: { number: 1 } })
    ).body;
    const run = (await s.api("getMergeQueueTestingDetails", { repo, targetBranch: "main", testRunId })).body;
    // #1 waited for the batch to fill: its status says it is testing now; its comment, posted while it was
    // queued, is not edited for that (the status says it), and says where its progress shows.
    const statusesOf1 = writes
      .filter((write) => write.path === `/statuses/${s.repo.pullRequest(1).headSha}`)
      .map((write) => write.body.description);
    expect(statusesOf1).toEqual([
      expect.stringMatching(/^Queued at position 1/),
      `Testing in run ${testRunId}`,
    ]);
    const commentWrites = writes.filter((write) => write.path.includes("/comments"));
    expect(commentWrites.map((write) => write.method)).toEqual(["POST", "POST"]);
    expect(s.repo.comments(1)[0]?.body).toContain("**Queued**");
    expect(s.repo.comments(1)[0]?.body).toContain(
      "Its progress shows on its `Switchyard Merge Queue (main)` check",
    );
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
      const [comment] = s.repo.comments(number).filter((c) => c.body.includes("Switchyard merge queue"));
      expect(comment!.body).toContain("**Merged**");
    }
    const commentEdits = writes.filter(
      (write) => write.method === "PATCH" && write.path.startsWith("/issues/comments/"),
    );
    expect(commentEdits.map((write) => String(write.body.body))).toEqual([
      expect.stringContaining("**Merged**"),
      expect.stringContaining("**Merged**"),
    ]);
  });
});
