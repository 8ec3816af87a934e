// The proof planner end to end (docs/queue-policy.md): PRs queued with `/merge` on the fake GitHub, each run a
// test branch of the target, the proven PRs and one group, CI answering with the required status, and the target
// moved only to a commit that passed. Flake evidence comes from JUnit uploads to test health, the PR's own CI from
// a status on its head.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { testDialects } from "../support/database.ts";
import {
  type GitHubWrite,
  recordWrites,
  repoRef as repo,
  type Scenario,
  startScenario,
} from "../support/queue-scenario.ts";
import { type CaseSpec, junitReport } from "../support/test-health.ts";

const MAIN_COMMIT = "c".repeat(40);
const BROKEN = "broken\n";

interface RunRecord {
  id: string;
  status: string;
  testBranch: string;
  testBranchSha: string;
  testedPullRequests: { prNumber: number }[];
}

describe.each(testDialects)("the proof planner on %s", (dialect) => {
  let s: Scenario;
  let writes: GitHubWrite[];
  beforeEach(async () => {
    const recorder = recordWrites();
    writes = recorder.writes;
    s = await startScenario({ dialect, whileAppWaits: recorder.whileAppWaits });
    s.repo.setPermission("alice", "write");
  });
  afterEach(async () => {
    expect(s.fake.unhandled).toEqual([]);
    await s.close();
  });

  const createQueue = async (settings: Record<string, unknown>) => {
    const created = await s.api("createQueue", {
      repo,
      targetBranch: "main",
      requiredStatuses: ["ci"],
      ...settings,
    });
    expect(created.status).toBeLessThan(300);
  };
  const open = (number: number, broken = false) =>
    s.repo.openPullRequest({
      number,
      title: `Change ${number}`,
      author: "alice",
      files: { [`src/${number}.ts`]: broken ? BROKEN : `${number}\n` },
    });
  /** Opens PRs, each adding its own file (a broken one a file CI fails on), and queues them with `/merge`. */
  const submit = async (numbers: readonly number[], broken: readonly number[] = []) => {
    for (const number of numbers) {
      open(number, broken.includes(number));
      s.repo.comment(number, "alice", "/merge");
      await s.settle();
    }
  };
  const record = async (number: number) =>
    (await s.api("getSubmittedPullRequest", { repo, targetBranch: "main", pr: { number } })).body;
  const run = async (testRunId: string): Promise<RunRecord> =>
    (await s.api("getMergeQueueTestingDetails", { repo, targetBranch: "main", testRunId })).body;
  const tested = (testRun: RunRecord) => testRun.testedPullRequests.map((pr) => pr.prNumber);
  const seq = (id: string) => Number(id.slice(id.lastIndexOf("-") + 1));
  /** Every run the PRs were seen in, oldest first (collected as CI answers them). */
  const seenRuns = new Map<string, RunRecord>();
  beforeEach(() => seenRuns.clear());
  const runsInFlight = async (numbers: readonly number[]) => {
    const ids = new Set<string>();
    for (const number of numbers) {
      const { testRunId } = await record(number);
      if (testRunId !== null) ids.add(testRunId);
    }
    const runs = await Promise.all([...ids].map(run));
    for (const found of runs) seenRuns.set(found.id, found);
    return runs.filter((r) => r.status === "in_progress").sort((a, b) => seq(a.id) - seq(b.id));
  };
  /** CI takes ten minutes, then reports `ci` on a commit. */
  const ciReports = async (sha: string, state: "success" | "failure") => {
    s.clock.now += 10 * 60_000;
    s.repo.reportStatus(sha, "ci", state, { targetUrl: "https://ci.example/build" });
    await s.settle();
  };
  const isBroken = (sha: string, numbers: readonly number[]) =>
    numbers.some((n) => s.repo.fileAt(sha, `src/${n}.ts`) === BROKEN);
  /** CI as a user's would be: the oldest run in flight fails when it holds a broken file, else passes; until none. */
  const ciUntilQuiet = async (numbers: readonly number[]) => {
    for (let round = 0; round < 40; round++) {
      const next = (await runsInFlight(numbers))[0];
      if (next === undefined) return;
      await ciReports(next.testBranchSha, isBroken(next.testBranchSha, numbers) ? "failure" : "success");
    }
    throw new Error("runs were still in flight after 40 reports");
  };
  /** Every commit the app moved `main` to, in order. */
  const targetMoves = () =>
    writes
      .filter(
        (write) => write.method === "PATCH" && decodeURIComponent(write.path) === "/git/refs/heads/main",
      )
      .map((write) => write.body.sha as string);
  const passedCi = (sha: string) =>
    s.repo.statuses(sha).some((status) => status.context === "ci" && status.state === "success");
  const commentOf = (number: number) =>
    s.repo.comments(number).find((comment) => comment.body.includes("Switchyard merge queue"))?.body ?? "";

  /** The PRs in the order their changes reached `main`, along its first parents. */
  const landingOrder = (numbers: readonly number[]) => {
    const firstParents: string[] = [];
    for (let sha = s.repo.branch("main"); sha !== undefined; sha = s.repo.commitOf(sha).parents[0]) {
      firstParents.unshift(sha);
    }
    const landedAt = (n: number) => firstParents.findIndex((sha) => s.repo.commitHasFile(sha, `src/${n}.ts`));
    return [...numbers].sort((a, b) => landedAt(a) - landedAt(b));
  };

  describe.each(["auto", "separate_proof"] as const)("with optimizationMode %s", (optimizationMode) => {
    const settings = { optimizationMode, batch: true, batchingMinSize: 2, mergeMethod: "merge_commit" };

    it("merges good PRs, moving the target only to commits whose CI passed", async () => {
      await createQueue({ ...settings, concurrency: 2 });
      await submit([1, 2, 3, 4, 5]);
      await ciUntilQuiet([1, 2, 3, 4, 5]);

      for (const n of [1, 2, 3, 4, 5]) {
        expect(await record(n)).toMatchObject({ state: "merged" });
        expect(s.repo.pullRequest(n).merged).toBe(true);
      }
      // Each landing fast-forwards main to a tested commit: no merge through GitHub's API makes an untested one.
      expect(writes.filter((write) => write.path.endsWith("/merge"))).toEqual([]);
      const moves = targetMoves();
      expect(moves.length).toBeGreaterThan(1);
      for (const sha of moves) expect(passedCi(sha), `main moved to ${sha}`).toBe(true);
      expect(moves.at(-1)).toBe(s.repo.branch("main"));
    });

    it("lands the PRs in the order they were submitted when one run tests at a time", async () => {
      await createQueue({ ...settings, concurrency: 1 });
      await submit([1, 2, 3, 4, 5]);
      await ciUntilQuiet([1, 2, 3, 4, 5]);

      for (const n of [1, 2, 3, 4, 5]) expect(await record(n)).toMatchObject({ state: "merged" });
      expect(landingOrder([1, 2, 3, 4, 5])).toEqual([1, 2, 3, 4, 5]);
      for (const sha of targetMoves()) expect(passedCi(sha), `main moved to ${sha}`).toBe(true);
    });
  });

  it("fails the broken PR with its reason and merges the good ones around it", async () => {
    await createQueue({ optimizationMode: "auto", concurrency: 2, mergeMethod: "merge_commit" });
    await submit([1, 2, 3, 4], [3]);
    await ciUntilQuiet([1, 2, 3, 4]);

    const broken = await record(3);
    expect(broken).toMatchObject({ state: "failed", stateReason: "tests_failed" });
    expect(broken.stateDetail).toEqual(expect.any(String));
    expect(s.repo.pullRequest(3).merged).toBe(false);
    for (const n of [1, 2, 4]) {
      expect(await record(n)).toMatchObject({ state: "merged" });
      expect(s.repo.pullRequest(n).merged).toBe(true);
    }
    const main = s.repo.branch("main")!;
    expect(s.repo.fileAt(main, "src/3.ts")).toBeUndefined();
    for (const sha of targetMoves()) expect(passedCi(sha), `main moved to ${sha}`).toBe(true);
  });

  it("tests a run again when only a known-flaky test failed on it, then merges its PR", async () => {
    const upload = async (commitSha: string, branch: string, cases: CaseSpec[]) => {
      const response = await s.api("flaky-tests/upload", {
        repo,
        org_url_slug: "acme",
        commit_sha: commitSha,
        branch,
        junit_xml: [junitReport(cases)],
      });
      expect(response.status).toBe(200);
      await s.settle();
    };
    // On main, `checkout` failed and passed on the same commit: test health knows it as flaky.
    await upload(MAIN_COMMIT, "main", [{ name: "checkout", classname: "shop" }]);
    await upload(MAIN_COMMIT, "main", [{ name: "checkout", classname: "shop", outcome: "failed" }]);
    await createQueue({ optimizationMode: "auto" });
    await submit([1]);
    const flaked = await run((await record(1)).testRunId);

    await upload(flaked.testBranchSha, flaked.testBranch, [
      { name: "checkout", classname: "shop", outcome: "failed" },
      { name: "cart", classname: "shop" },
    ]);
    await ciReports(flaked.testBranchSha, "failure");

    const retesting = await record(1);
    expect(retesting.state).toBe("testing");
    expect(retesting.testRunId).not.toBe(flaked.id);
    expect(await run(flaked.id)).toMatchObject({ status: "failed", flakyFailure: true });
    await ciReports((await run(retesting.testRunId)).testBranchSha, "success");

    expect(await record(1)).toMatchObject({ state: "merged" });
    expect(s.repo.pullRequest(1).merged).toBe(true);
    expect(commentOf(1)).toContain("shop › checkout");
  });

  it("tests alone a queued PR whose own CI failed on its head", async () => {
    await createQueue({ optimizationMode: "auto", concurrency: 1 });
    // PR 1 takes the only slot; 2, 3 and 4 wait behind it.
    await submit([1, 2, 3, 4]);
    const first = await run((await record(1)).testRunId);
    expect(tested(first)).toEqual([1]);
    s.repo.reportStatus(s.repo.pullRequest(3).headSha, "ci", "failure");
    await s.settle();

    await ciUntilQuiet([1, 2, 3, 4]);

    for (const n of [1, 2, 3, 4]) expect(await record(n)).toMatchObject({ state: "merged" });
    const holding = (n: number) => [...seenRuns.values()].filter((r) => tested(r).includes(n));
    const runsOf3 = holding(3);
    expect(runsOf3.length).toBeGreaterThan(0);
    for (const r of runsOf3) expect(tested(r), `run ${r.id}`).toEqual([3]);
    // The others, with no such evidence, were tested together.
    expect(holding(2).some((r) => tested(r).includes(4))).toBe(true);
  });
});
