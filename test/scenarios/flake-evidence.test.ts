// Flake evidence end to end (docs/flake-evidence.md): a PR queued with `/merge`, its test branch built on the fake
// GitHub, CI uploading JUnit reports of the test branch's commit to test health, and the required status webhook.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { testDialects } from "../support/database.ts";
import { repoRef as repo, type Scenario, startScenario } from "../support/queue-scenario.ts";
import { type CaseSpec, junitReport } from "../support/test-health.ts";

const MAIN_COMMIT = "c".repeat(40);

describe.each(testDialects)("flake evidence from test health on %s", (dialect) => {
  let s: Scenario;
  beforeEach(async () => {
    s = await startScenario({ dialect });
    s.repo.setPermission("alice", "write");
    await s.api("createQueue", { repo, targetBranch: "main", requiredStatuses: ["ci"] });
  });
  afterEach(async () => {
    expect(s.fake.unhandled).toEqual([]);
    await s.close();
  });

  const record = async (number: number) =>
    (await s.api("getSubmittedPullRequest", { repo, targetBranch: "main", pr: { number } })).body;
  const testingDetails = async (testRunId: string) =>
    (await s.api("getMergeQueueTestingDetails", { repo, targetBranch: "main", testRunId })).body;
  const upload = async (commitSha: string, branch: string, cases: CaseSpec[], to = repo) => {
    const response = await s.api("flaky-tests/upload", {
      repo: to,
      org_url_slug: "acme",
      commit_sha: commitSha,
      branch,
      junit_xml: [junitReport(cases)],
    });
    expect(response.status).toBe(200);
    // What the queue decided on it runs in the background: a retest's branch, a comment.
    await s.settle();
  };
  /** PR #1 queued with `/merge`: its run in flight, on its test branch. */
  const queuePr = async () => {
    s.repo.openPullRequest({
      number: 1,
      title: "Change 1",
      author: "alice",
      files: { "src/one.ts": "one\n" },
    });
    s.repo.comment(1, "alice", "/merge");
    await s.settle();
    return testingDetails((await record(1)).testRunId);
  };
  /** CI takes ten minutes, then reports `ci` on a commit. */
  const ciReports = async (sha: string, state: "success" | "failure") => {
    s.clock.now += 10 * 60_000;
    s.repo.reportStatus(sha, "ci", state, { targetUrl: "https://ci.example/1" });
    await s.settle();
  };

  beforeEach(async () => {
    // On main, `checkout` failed and passed on the same commit: test health knows it as flaky.
    await upload(MAIN_COMMIT, "main", [
      { name: "checkout", classname: "shop" },
      { name: "cart", classname: "shop" },
    ]);
    await upload(MAIN_COMMIT, "main", [{ name: "checkout", classname: "shop", outcome: "failed" }]);
  });

  it("tests a PR again when only a known-flaky test failed on its test branch, then merges it", async () => {
    const flaked = await queuePr();
    await upload(flaked.testBranchSha, flaked.testBranch, [
      { name: "checkout", classname: "shop", outcome: "failed" },
      { name: "cart", classname: "shop" },
    ]);
    await ciReports(flaked.testBranchSha, "failure");

    const retesting = await record(1);
    expect(retesting.state).toBe("testing");
    expect(retesting.testRunId).not.toBe(flaked.id);
    expect(await testingDetails(flaked.id)).toMatchObject({
      status: "failed",
      knownFlakyFailures: ["shop › checkout"],
      flakyFailure: true,
    });
    const retest = await testingDetails(retesting.testRunId);
    expect(retest.testBranchSha).not.toBe(flaked.testBranchSha);
    await ciReports(retest.testBranchSha, "success");

    expect(await record(1)).toMatchObject({ state: "merged" });
    expect(s.repo.pullRequest(1).merged).toBe(true);
    const [comment] = s.repo.comments(1).filter((c) => c.body.includes("Switchyard merge queue"));
    expect(comment?.body).toContain(
      `**Known-flaky failures:** run \`${flaked.id}\` failed only on \`shop › checkout\`; it was tested again.`,
    );
  });

  it("fails the PR as usual when a healthy test failed on its test branch too", async () => {
    const run = await queuePr();
    await upload(run.testBranchSha, run.testBranch, [
      { name: "checkout", classname: "shop", outcome: "failed" },
      { name: "cart", classname: "shop", outcome: "failed" },
    ]);
    await ciReports(run.testBranchSha, "failure");

    expect(await record(1)).toMatchObject({ state: "failed", stateReason: "tests_failed" });
    expect(s.repo.pullRequest(1).merged).toBe(false);
    expect(await testingDetails(run.id)).toMatchObject({
      status: "failed",
      knownFlakyFailures: ["shop › checkout"],
      flakyFailure: false,
    });
  });

  it("takes no evidence from another repository's upload naming the test branch's commit", async () => {
    const run = await queuePr();
    const gadgets = { ...repo, name: "gadgets" };
    await upload(MAIN_COMMIT, "main", [{ name: "checkout", classname: "shop" }], gadgets);
    await upload(MAIN_COMMIT, "main", [{ name: "checkout", classname: "shop", outcome: "failed" }], gadgets);
    await upload(
      run.testBranchSha,
      run.testBranch,
      [{ name: "checkout", classname: "shop", outcome: "failed" }],
      gadgets,
    );

    await ciReports(run.testBranchSha, "failure");

    expect(await record(1)).toMatchObject({ state: "failed", stateReason: "tests_failed" });
    expect(await testingDetails(run.id)).toMatchObject({ knownFlakyFailures: [], flakyFailure: false });
  });

  it("waits for the upload when the failing status comes first, in a queue that gets uploads", async () => {
    const first = await queuePr();
    // The queue's first upload: from now on it expects one for each run.
    await upload(first.testBranchSha, first.testBranch, [
      { name: "checkout", classname: "shop", outcome: "failed" },
    ]);
    await ciReports(first.testBranchSha, "failure");
    const flaked = await testingDetails((await record(1)).testRunId);

    await ciReports(flaked.testBranchSha, "failure");
    expect(await record(1)).toMatchObject({ state: "testing", testRunId: flaked.id });
    s.clock.now += 60_000;
    await upload(flaked.testBranchSha, flaked.testBranch, [
      { name: "checkout", classname: "shop", outcome: "failed" },
    ]);

    const retesting = await record(1);
    expect(retesting.testRunId).not.toBe(flaked.id);
    await ciReports((await testingDetails(retesting.testRunId)).testBranchSha, "success");
    expect(await record(1)).toMatchObject({ state: "merged" });
  });

  it("fails the run once the wait for an upload ends without one", async () => {
    const first = await queuePr();
    await upload(first.testBranchSha, first.testBranch, [
      { name: "checkout", classname: "shop", outcome: "failed" },
    ]);
    await ciReports(first.testBranchSha, "failure");
    const waiting = await testingDetails((await record(1)).testRunId);

    await ciReports(waiting.testBranchSha, "failure");
    s.clock.now += 4 * 60_000;
    await s.poll();
    expect(await record(1)).toMatchObject({ state: "testing", testRunId: waiting.id });
    s.clock.now += 60_000;
    await s.poll();

    expect(await record(1)).toMatchObject({ state: "failed", stateReason: "tests_failed" });
    expect((await record(1)).stateDetail).toContain("No test results explained it within 5 minutes.");
  });
});
