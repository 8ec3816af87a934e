// Speculative runs end to end (docs/queue.md#testing, #what-concurrency-bounds): the first `concurrency` ready PRs test at the same time, each
// on a test branch built from the target through the PRs ahead, and the target moves only to tested commits.
import { afterEach, describe, expect, it, vi } from "vitest";
import { testDialects } from "../support/database.ts";
import {
  type GitHubWrite,
  recordWrites,
  repoRef as repo,
  type Scenario,
  startScenario,
} from "../support/queue-scenario.ts";

const isNotification = (write: GitHubWrite) => /\/(comments|statuses)(\/|$)/.test(write.path);

describe.each(testDialects)("speculative runs on %s", (dialect) => {
  let s: Scenario;
  let writes: GitHubWrite[];
  /** GitHub's answers to commit statuses and PR comments wait for this. */
  let notificationsAnswered: Promise<void>;

  async function start() {
    const recorder = recordWrites();
    writes = recorder.writes;
    notificationsAnswered = Promise.resolve();
    s = await startScenario({
      dialect,
      whileAppWaits: async (request, response) => {
        const before = writes.length;
        await recorder.whileAppWaits!(request, response);
        if (writes.length > before && isNotification(writes.at(-1)!)) await notificationsAnswered;
      },
    });
    s.repo.setPermission("alice", "write");
  }
  afterEach(async () => {
    expect(s.fake.unhandled).toEqual([]);
    await s.close();
  });

  const record = async (number: number) =>
    (await s.api("getSubmittedPullRequest", { repo, targetBranch: "main", pr: { number } })).body;
  const runOf = async (number: number) => {
    const pr = await record(number);
    return (
      await s.api("getMergeQueueTestingDetails", { repo, targetBranch: "main", testRunId: pr.testRunId })
    ).body;
  };
  /** Three PRs, each changing its own file unless `files` says otherwise, ready while the queue is paused. */
  async function threeReadyPrs(
    settings: Record<string, unknown>,
    files: (number: number) => Record<string, string> = (number) => ({ [`src/${number}.ts`]: `${number}\n` }),
  ) {
    await s.api("createQueue", { repo, targetBranch: "main", requiredStatuses: ["ci"], ...settings });
    await s.api("updateQueue", { repo, targetBranch: "main", state: "paused" });
    for (const number of [1, 2, 3]) {
      s.repo.openPullRequest({ number, title: `Change ${number}`, author: "alice", files: files(number) });
      await s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number } });
    }
    await s.settle();
  }

  it("three ready PRs with concurrency 3 get their three test branches at once, never behind a comment or status", async () => {
    await start();
    await threeReadyPrs({ concurrency: 3 });
    writes.length = 0;

    // No PR comment or commit status waits in front of a test branch: while GitHub holds their answers back,
    // the three test branches are created all the same.
    let answerNotifications = () => {};
    notificationsAnswered = new Promise((resolve) => (answerNotifications = resolve));
    await s.api("updateQueue", { repo, targetBranch: "main", state: "running" });
    const creations = () =>
      writes.filter(
        (write) =>
          write.path.startsWith("/git/refs/heads/mq/") ||
          String(write.body.ref ?? write.body.base ?? "")
            .replace("refs/heads/", "")
            .startsWith("mq/"),
      );
    await vi.waitFor(() => expect(creations()).toHaveLength(3), { timeout: 5_000 });
    answerNotifications();
    await s.settle();

    const runs = [await runOf(1), await runOf(2), await runOf(3)];
    expect(runs.map((run) => run.status)).toEqual(["in_progress", "in_progress", "in_progress"]);
    // Each test branch is pushed once, at the commit it tests.
    expect(creations()).toEqual(
      runs.map((run) => ({
        method: "POST",
        path: "/git/refs",
        body: { ref: `refs/heads/${run.testBranch}`, sha: run.testBranchSha },
      })),
    );
    expect(writes.filter(isNotification).length).toBeGreaterThan(0);
    // Each tests the target plus the PRs ahead of it plus its own.
    runs.forEach((run, index) => {
      for (const number of [1, 2, 3])
        expect(s.repo.commitHasFile(run.testBranchSha, `src/${number}.ts`)).toBe(number <= index + 1);
    });
  });

  it("merge_commit fast-forwards the target from one tested commit to the next, whichever run passes first", async () => {
    await start();
    await threeReadyPrs({ concurrency: 3, mergeMethod: "merge_commit" });
    await s.api("updateQueue", { repo, targetBranch: "main", state: "running" });
    await s.settle();
    const runs = [await runOf(1), await runOf(2), await runOf(3)];
    // Each run's branch was built from the target, yet holds the very commits the runs ahead test.
    expect(s.repo.resolve(runs[2].testBranchSha)?.parents[0]).toBe(runs[1].testBranchSha);
    expect(s.repo.resolve(runs[1].testBranchSha)?.parents[0]).toBe(runs[0].testBranchSha);
    // They can: a merge commit is dated when the queue started testing its PR, not when it was made.
    expect(Date.parse(s.repo.resolve(runs[0].testBranchSha)!.date)).toBe(Date.parse(runs[0].createdAt));

    const heads: string[] = [];
    for (const run of runs) {
      s.repo.reportStatus(run.testBranchSha, "ci", "success");
      await s.settle();
      heads.push(s.repo.branch("main")!);
    }

    expect(heads).toEqual(runs.map((run) => run.testBranchSha));
    expect([1, 2, 3].map((number) => s.repo.pullRequest(number).merged)).toEqual([true, true, true]);
  });

  it("a PR that does not merge on top of the ones ahead fails alone; the PR behind is tested again without it", async () => {
    await start();
    // #2 conflicts with #1; #3 changes a file of its own.
    await threeReadyPrs({ concurrency: 3 }, (number): Record<string, string> =>
      number === 3 ? { "src/3.ts": "3\n" } : { "src/shared.ts": `from ${number}\n` },
    );

    await s.api("updateQueue", { repo, targetBranch: "main", state: "running" });
    await s.settle();

    expect(await record(2)).toMatchObject({ state: "failed", stateReason: "merge_conflict" });
    expect((await record(1)).state).toBe("testing");
    const [run1, run3] = [await runOf(1), await runOf(3)];
    expect(await record(3)).toMatchObject({ state: "testing" });
    expect(run3.testedPullRequests.map((pr: { prNumber: number }) => pr.prNumber)).toEqual([3]);
    expect(s.repo.resolve(run3.testBranchSha)?.parents[0]).toBe(run1.testBranchSha);
    expect(s.repo.commitHasFile(run3.testBranchSha, "src/3.ts")).toBe(true);
  });
});
