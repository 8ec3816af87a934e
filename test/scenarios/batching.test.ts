// docs/queue.md#batching, #bisection end to end on a fake GitHub: batches tested as one commit and merged with each merge method,
// failed batches bisected in their own pool until the broken PR is found, failures confirmed once more
// (confirmFailures), batches made smaller while failures are frequent (adaptiveBatching), and a lone PR held for
// the batch to fill until batchingMaxWaitTimeMinutes is over.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { testDialects } from "../support/database.ts";
import { repoRef as repo, type Scenario, startScenario } from "../support/queue-scenario.ts";

const MINUTE_MS = 60_000;
const BROKEN = "broken\n";

interface RunRecord {
  id: string;
  status: string;
  testBranchSha: string;
  testedPullRequests: { prNumber: number }[];
  purpose: "main" | "bisection" | "confirmation";
  followsUpRunId: string | null;
  createdAt: string;
}

describe.each(testDialects)("batching and bisection on %s", (dialect) => {
  let s: Scenario;
  beforeEach(async () => {
    s = await startScenario({ dialect });
  });
  afterEach(async () => {
    expect(s.fake.unhandled).toEqual([]);
    await s.close();
  });

  const createQueue = (settings: Record<string, unknown> = {}) =>
    s.api("createQueue", {
      repo,
      targetBranch: "main",
      requiredStatuses: ["ci"],
      batch: true,
      batchingMinSize: 4,
      ...settings,
    });
  /** Opens and submits PRs 1..n, each adding its own file; the broken ones add a file that fails CI. */
  const submitPrs = async (
    numbers: readonly number[],
    broken: readonly number[] = [],
    submission: Record<string, unknown> = {},
  ) => {
    for (const number of numbers) {
      s.repo.openPullRequest({
        number,
        title: `Change ${number}`,
        author: "alice",
        files: { [`src/${number}.ts`]: broken.includes(number) ? BROKEN : `${number}\n` },
      });
      await s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number }, ...submission });
    }
    await s.settle();
  };
  const record = async (number: number) =>
    (await s.api("getSubmittedPullRequest", { repo, targetBranch: "main", pr: { number } })).body;
  const run = async (testRunId: string): Promise<RunRecord> =>
    (await s.api("getMergeQueueTestingDetails", { repo, targetBranch: "main", testRunId })).body;
  const runOf = async (number: number) => run((await record(number)).testRunId);
  const tested = (testRun: RunRecord) => testRun.testedPullRequests.map((pr) => pr.prNumber);
  const report = async (testRunId: string, state: "success" | "failure") => {
    s.repo.reportStatus((await run(testRunId)).testBranchSha, "ci", state, {
      targetUrl: "https://ci.example/build",
    });
    await s.settle();
  };
  /** The runs in flight of the PRs, oldest first. */
  const runsInFlight = async (numbers: readonly number[]) => {
    const ids = new Set<string>();
    for (const number of numbers) {
      const { testRunId } = await record(number);
      if (testRunId !== null) ids.add(testRunId);
    }
    const runs = await Promise.all([...ids].map(run));
    const seq = (id: string) => Number(id.slice(id.lastIndexOf("-") + 1));
    return runs.filter((r) => r.status === "in_progress").sort((a, b) => seq(a.id) - seq(b.id));
  };
  /**
   * CI as a user's would be: each run in flight, oldest first, fails when its tested commit holds a broken
   * file, else passes; until no run is left. Answers every run it reported on.
   */
  const ciUntilQuiet = async (numbers: readonly number[]) => {
    const reported: RunRecord[] = [];
    for (let round = 0; round < 30; round++) {
      const next = (await runsInFlight(numbers))[0];
      if (next === undefined) return reported;
      const broken = numbers.some((n) => s.repo.fileAt(next.testBranchSha, `src/${n}.ts`) === BROKEN);
      await report(next.id, broken ? "failure" : "success");
      reported.push(next);
    }
    throw new Error("runs were still in flight after 30 reports");
  };
  /** Every run of the queue, in the order they started (run ids end with a sequence number). */
  const allRuns = async () => {
    const queueId = (await runOf(1)).id.replace(/-\d+$/, "");
    const runs: RunRecord[] = [];
    for (let seq = 1; ; seq++) {
      const found = await s.api("getMergeQueueTestingDetails", {
        repo,
        targetBranch: "main",
        testRunId: `${queueId}-${seq}`,
      });
      if (found.status === 404) return runs;
      runs.push(found.body);
    }
  };
  const commentOf = (number: number) =>
    s.repo.comments(number).find((comment) => comment.body.includes("Switchyard merge queue"))?.body ?? "";

  describe.each(["merge_commit", "squash", "rebase"] as const)("with mergeMethod %s", (mergeMethod) => {
    it("tests four PRs as one batch and merges them as the commit that was tested", async () => {
      await createQueue({ mergeMethod });
      await submitPrs([1, 2, 3, 4]);
      const batch = await runOf(1);
      expect(batch).toMatchObject({ status: "in_progress", purpose: "main", followsUpRunId: null });
      expect(tested(batch)).toEqual([1, 2, 3, 4]);
      for (const n of [2, 3, 4]) expect((await record(n)).testRunId).toBe(batch.id);

      await report(batch.id, "success");

      for (const n of [1, 2, 3, 4]) {
        expect(await record(n)).toMatchObject({ state: "merged", testRunId: batch.id });
        expect(s.repo.pullRequest(n).merged).toBe(true);
      }
      const main = s.repo.branch("main")!;
      expect(s.repo.commitOf(main).treeSha).toBe(s.repo.commitOf(batch.testBranchSha).treeSha);
      if (mergeMethod === "merge_commit") expect(main).toBe(batch.testBranchSha);
    });
  });

  /**
   * Submits PRs 1 to 4 with `broken` broken, fails their batch, and checks the bisection that follows starts in
   * its own pool; then CI runs until the queue is quiet. Answers the batch run and every run of the queue.
   */
  const bisectBatchOfFour = async (broken: number, settings: Record<string, unknown>) => {
    await createQueue({ bisectionConcurrency: 2, ...settings });
    await submitPrs([1, 2, 3, 4], [broken]);
    const batch = await runOf(1);
    expect(tested(batch)).toEqual([1, 2, 3, 4]);

    await report(batch.id, "failure");

    const bisecting = await runsInFlight([1, 2, 3, 4]);
    expect(bisecting.map((r) => r.purpose)).toEqual(["bisection", "bisection"]);
    expect(bisecting[0]?.followsUpRunId).toBe(batch.id);
    expect((await record(1)).stateDetail).toContain(`Bisecting run ${batch.id}`);
    expect(commentOf(1)).toContain(`Bisecting run ${batch.id}`);

    await ciUntilQuiet([1, 2, 3, 4]);
    for (const n of [1, 2, 3, 4].filter((n) => n !== broken)) {
      expect(await record(n)).toMatchObject({ state: "merged" });
      expect(s.repo.fileAt("main", `src/${n}.ts`)).toBe(`${n}\n`);
    }
    expect(await record(broken)).toMatchObject({ state: "failed", stateReason: "tests_failed" });
    expect(s.repo.fileAt("main", `src/${broken}.ts`)).toBeUndefined();
    return { batch, runs: await allRuns() };
  };
  /** The bisection runs that tested the failed batch's own content again (its outcome was known). */
  const retestsOf = (batch: RunRecord, runs: readonly RunRecord[]) => {
    const batchTree = s.repo.commitOf(batch.testBranchSha).treeSha;
    return runs.filter(
      (r) => r.purpose === "bisection" && s.repo.commitOf(r.testBranchSha).treeSha === batchTree,
    );
  };

  it("bisects a failed batch of four: the three innocent PRs merge, the broken one fails on the run that proved it", async () => {
    const { batch, runs } = await bisectBatchOfFour(3, {});
    const broken = await record(3);
    const proof = runs.find((r) => r.id === broken.testRunId)!;
    expect(proof).toMatchObject({ status: "failed", purpose: "bisection" });
    expect(tested(proof)).toEqual([3]);
    expect(commentOf(3)).toContain(`Latest test run: \`${proof.id}\``);
    // Every part is tested, also those holding the failed batch's content: #3, #4 on top of #1, #2, then #4 on
    // top of #1, #2, #3.
    expect(retestsOf(batch, runs).map(tested)).toEqual([[3, 4], [4]]);
  });

  it("with bisection_skip_redundant_tests never tests the failed batch's content again", async () => {
    const { batch, runs } = await bisectBatchOfFour(4, {
      optimizationMode: "bisection_skip_redundant_tests",
    });
    expect(retestsOf(batch, runs)).toEqual([]);
    // #1, #2 and #3 passed on top of each other, so the batch's failure is #4's: it is proven by the batch.
    expect(runs.filter((r) => tested(r).includes(4)).map((r) => r.id)).toEqual([batch.id]);
    expect((await record(4)).testRunId).toBe(batch.id);
    expect(commentOf(4)).toContain(`Latest test run: \`${batch.id}\``);
  });

  describe("with confirmFailures", () => {
    it("fails a really broken PR once its confirmation run failed too, naming both runs", async () => {
      await createQueue({ batch: false, confirmFailures: true });
      await submitPrs([1], [1]);
      const first = await runOf(1);
      await report(first.id, "failure");
      const confirmation = await runOf(1);
      expect(confirmation).toMatchObject({ purpose: "confirmation", followsUpRunId: first.id });

      await report(confirmation.id, "failure");
      const failed = await record(1);
      expect(failed).toMatchObject({ state: "failed", stateReason: "tests_failed" });
      expect(failed.stateDetail).toContain(
        `It failed again alone in run ${confirmation.id}, after run ${first.id} failed:`,
      );
      expect(s.repo.pullRequest(1).merged).toBe(false);
    });

    it("retests a flaky failure on a new commit, and the PR merges", async () => {
      await createQueue({ batch: false, confirmFailures: true });
      await submitPrs([1]);
      const first = await runOf(1);
      // CI takes its time: the runs below start later than the first.
      s.clock.now += 20 * MINUTE_MS;
      await report(first.id, "failure");
      const confirmation = await runOf(1);
      expect(confirmation).toMatchObject({ purpose: "confirmation", followsUpRunId: first.id });
      // CI results belong to commits: the confirmation tests a commit of its own, which CI runs anew.
      expect(confirmation.testBranchSha).not.toBe(first.testBranchSha);
      expect(confirmation.status).toBe("in_progress");

      s.clock.now += 20 * MINUTE_MS;
      await report(confirmation.id, "success");
      expect(await record(1)).toMatchObject({ state: "testing" });
      const retest = await runOf(1);
      expect(retest.purpose).toBe("main");
      await report(retest.id, "success");

      expect(await record(1)).toMatchObject({ state: "merged" });
      expect(s.repo.pullRequest(1).merged).toBe(true);
    });
  });

  describe.each([true, false])("with adaptiveBatching %s", (adaptiveBatching) => {
    it("sizes the next batch by the failures of the last hours", async () => {
      await createQueue({ adaptiveBatching });
      // Five PRs tested alone that all fail: a failure rate that makes large batches fail most of the time.
      const failing = [1, 2, 3, 4, 5];
      await submitPrs(failing, failing, { noBatch: true });
      await ciUntilQuiet(failing);
      for (const n of failing) expect((await record(n)).state).toBe("failed");

      await submitPrs([6, 7, 8, 9]);
      expect(tested(await runOf(6))).toEqual(adaptiveBatching ? [6, 7] : [6, 7, 8, 9]);
    });
  });

  describe("batchingMaxWaitTimeMinutes", () => {
    /** A scheduler pass as the service's timer runs it: ticks the queues whose deadline has come. */
    const tickAt = async (at: number) => {
      s.clock.now = at;
      await s.server.engine.scheduler.runOnce();
      await s.settle();
    };

    it("holds a lone PR for a batch to fill, and tests it once the wait is over", async () => {
      await createQueue({ batchingMaxWaitTimeMinutes: 10 });
      const submittedAt = s.clock.now;
      await submitPrs([1]);
      expect(await record(1)).toMatchObject({ state: "pending", testRunId: null });

      await tickAt(submittedAt + 9 * MINUTE_MS);
      expect(await record(1)).toMatchObject({ state: "pending", testRunId: null });

      await tickAt(submittedAt + 10 * MINUTE_MS);
      expect((await record(1)).state).toBe("testing");
      const alone = await runOf(1);
      expect(tested(alone)).toEqual([1]);
      await report(alone.id, "success");
      expect((await record(1)).state).toBe("merged");
    });

    it("does not hold an urgent PR", async () => {
      await createQueue({ batchingMaxWaitTimeMinutes: 10 });
      s.repo.openPullRequest({ number: 1, title: "Hotfix", author: "alice", files: { "src/1.ts": "1\n" } });
      await s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number: 1 }, priority: "urgent" });
      await s.settle();
      expect((await record(1)).state).toBe("testing");
      expect(tested(await runOf(1))).toEqual([1]);
    });
  });
});
