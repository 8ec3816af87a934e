// Speculative runs end to end (contract 5.2, 5.3): the first `concurrency` ready PRs test at the same time, each
// on a test branch built from the target through the PRs ahead, and the target moves only to tested commits.
import { afterEach, describe, expect, it } from "vitest";
import { testDialects } from "../support/database.ts";
import { repoRef as repo, type Scenario, startScenario } from "../support/queue-scenario.ts";

describe.each(testDialects)("speculative runs on %s", (dialect) => {
  let s: Scenario;
  /** The app's writes to GitHub, in order: `POST /git/refs <ref>` for a new branch, else method and path. */
  let writes: string[];

  async function start() {
    writes = [];
    s = await startScenario({
      dialect,
      whileAppWaits: async (request) => {
        if (request.method === "GET") return;
        const path = new URL(request.url).pathname.replace("/repos/acme/widgets", "");
        const ref = path === "/git/refs" ? ` ${((await request.json()) as { ref: string }).ref}` : "";
        writes.push(`${request.method} ${path}${ref}`);
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
  /** Three PRs, each changing its own file, ready while the queue is paused. */
  async function threeReadyPrs(settings: Record<string, unknown>) {
    await s.api("createQueue", { repo, targetBranch: "main", requiredStatuses: ["ci"], ...settings });
    await s.api("updateQueue", { repo, targetBranch: "main", state: "paused" });
    for (const number of [1, 2, 3]) {
      s.repo.openPullRequest({
        number,
        title: `Change ${number}`,
        author: "alice",
        files: { [`src/${number}.ts`]: `${number}\n` },
      });
      await s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number } });
    }
    await s.settle();
  }

  it("three ready PRs with concurrency 3 get their three test branches at once, before anything else is written", async () => {
    await start();
    await threeReadyPrs({ concurrency: 3 });
    writes = [];

    await s.api("updateQueue", { repo, targetBranch: "main", state: "running" });
    await s.settle();

    const runs = [await runOf(1), await runOf(2), await runOf(3)];
    expect(runs.map((run) => run.status)).toEqual(["in_progress", "in_progress", "in_progress"]);
    const created = writes.filter((write) => write.startsWith("POST /git/refs"));
    expect(created).toEqual(runs.map((run) => `POST /git/refs refs/heads/${run.testBranch}`));
    // No PR comment or commit status waited in front of a test branch.
    const lastCreation = writes.indexOf(created.at(-1)!);
    const notifications = writes.filter((write) => /\/(comments|statuses)\//.test(write));
    expect(notifications.length).toBeGreaterThan(0);
    expect(writes.slice(0, lastCreation).filter((write) => notifications.includes(write))).toEqual([]);
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

    const heads: string[] = [];
    for (const run of runs) {
      s.repo.reportStatus(run.testBranchSha, "ci", "success");
      await s.settle();
      heads.push(s.repo.branch("main")!);
    }

    expect(heads).toEqual(runs.map((run) => run.testBranchSha));
    expect([1, 2, 3].map((number) => s.repo.pullRequest(number).merged)).toEqual([true, true, true]);
  });
});
