// docs/queue.md#testing: what building test branches writes to GitHub. The merges are made on one scratch branch per
// queue, kept between builds: a run built on the tested commit of the run before it needs no write to move it.
// With squash (no tested commit ever lands) GitHub's own merge commits are the test branch; with merge_commit each
// is made again with a fixed date, so that the target can fast-forward from one tested commit to the next.
import { afterEach, describe, expect, it } from "vitest";
import {
  type GitHubWrite,
  recordWrites,
  repoRef as repo,
  type Scenario,
  startScenario,
} from "../support/queue-scenario.ts";

describe("test branch writes", () => {
  let s: Scenario;
  let writes: GitHubWrite[];
  afterEach(async () => {
    expect(s.fake.unhandled).toEqual([]);
    await s.close();
  });

  /** Two runs of two PRs, the second built on the tested commit of the first (nothing lands before CI passes). */
  async function twoRuns(mergeMethod: "squash" | "merge_commit", onWrite?: (write: GitHubWrite) => void) {
    const recorder = recordWrites();
    writes = recorder.writes;
    s = await startScenario({
      whileAppWaits: async (request, response) => {
        await recorder.whileAppWaits?.(request, response);
        const last = writes.at(-1);
        if (last !== undefined && request.method !== "GET") onWrite?.(last);
      },
    });
    await s.api("createQueue", {
      repo,
      targetBranch: "main",
      requiredStatuses: ["ci"],
      concurrency: 2,
      batch: true,
      batchingMinSize: 2,
      mergeMethod,
    });
    await s.submitPullRequests([1, 2, 3, 4]);
    await s.settle();
  }

  const runOf = async (number: number) => {
    const { testRunId } = (
      await s.api("getSubmittedPullRequest", { repo, targetBranch: "main", pr: { number } })
    ).body;
    return (await s.api("getMergeQueueTestingDetails", { repo, targetBranch: "main", testRunId })).body;
  };
  const refWrites = () =>
    writes.filter((write) => write.path.startsWith("/git/refs")).map((write) => write.method);

  it("squash: GitHub's merge commits are the test branch, on a scratch branch created once", async () => {
    await twoRuns("squash");
    const [first, second] = [await runOf(1), await runOf(3)];
    expect(second.testBranchSha).not.toBe(first.testBranchSha);
    expect(writes.filter((write) => write.path === "/git/commits")).toEqual([]);
    expect(writes.filter((write) => write.path === "/merges")).toHaveLength(4);
    // The scratch branch once, then each test branch: the second run merges onto what the first left there.
    expect(refWrites()).toEqual(["POST", "POST", "POST"]);
    for (const number of [1, 2, 3, 4])
      expect(s.repo.commitHasFile(second.testBranchSha, `src/${number}.ts`)).toBe(true);
    expect(s.repo.isAncestor(first.testBranchSha, second.testBranchSha)).toBe(true);
  });

  it("merge_commit: each merge made again with its fixed date, and the passed runs land by fast-forwards", async () => {
    await twoRuns("merge_commit");
    const [first, second] = [await runOf(1), await runOf(3)];
    expect(writes.filter((write) => write.path === "/git/commits")).toHaveLength(4);
    expect(refWrites()).toEqual(["POST", "POST", "POST"]);
    for (const sha of [first.testBranchSha, second.testBranchSha]) {
      s.repo.reportStatus(sha, "ci", "success");
      await s.settle();
    }
    expect(s.repo.branch("main")).toBe(second.testBranchSha);
    expect(s.repo.pullRequests().every((pr) => pr.merged)).toBe(true);
  });

  it("a build whose scratch branch another build moved under it is made again, with only its own PRs", async () => {
    let moved = false;
    await twoRuns("squash", (write) => {
      // After the first merge of the first build, someone else's build moves the shared scratch branch.
      if (write.path === "/merges" && !moved) {
        moved = true;
        const [scratch] = s.repo.branches().filter((branch) => branch.startsWith("switchyard-build/"));
        s.repo.createBranch("elsewhere", "main");
        s.repo.commit("elsewhere", { "src/stray.ts": "stray\n" });
        s.repo.updateRef(scratch!, s.repo.branch("elsewhere")!, true, "someone");
      }
    });
    s.clock.now += 60_000;
    await s.poll();
    const second = await runOf(3);
    expect(moved).toBe(true);
    expect(second.testBranchSha).toEqual(expect.any(String));
    for (const number of [1, 2, 3, 4])
      expect(s.repo.commitHasFile(second.testBranchSha, `src/${number}.ts`)).toBe(true);
    expect(s.repo.commitHasFile(second.testBranchSha, "src/stray.ts")).toBe(false);
    const first = await runOf(1);
    expect(s.repo.commitHasFile(first.testBranchSha, "src/2.ts")).toBe(true);
    expect(s.repo.commitHasFile(first.testBranchSha, "src/stray.ts")).toBe(false);
  });
});
