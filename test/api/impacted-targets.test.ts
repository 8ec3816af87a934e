// setImpactedTargets (docs/queue.md#impacted-targets, docs/api.md#conventions) against a live parallel queue: what a CI upload script sends
// is taken as the queue will use it, and a refused upload leaves the targets known before untouched.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { testDialects } from "../support/database.ts";
import { repoRef as repo, type Scenario, startScenario } from "../support/queue-scenario.ts";

describe.each(testDialects)("setImpactedTargets on %s", (dialect) => {
  let s: Scenario;
  let sha: string;
  beforeEach(async () => {
    s = await startScenario({ dialect });
    await s.api("createQueue", { repo, targetBranch: "main", mode: "parallel", requiredStatuses: ["ci"] });
    s.repo.openPullRequest({ number: 1, title: "Change 1", author: "alice", files: { "src/1.ts": "one\n" } });
    sha = s.repo.pullRequest(1).headSha;
  });
  afterEach(async () => {
    await s.close();
  });

  const target = { repo, targetBranch: "main" };

  /** The impacted targets of the run testing PR 1, once it was submitted. */
  async function testedTargets() {
    await s.api("submitPullRequest", { ...target, pr: { number: 1 } });
    await s.settle();
    const pr = (await s.api("getSubmittedPullRequest", { ...target, pr: { number: 1 } })).body;
    const run = await s.api("getMergeQueueTestingDetails", { ...target, testRunId: pr.testRunId });
    return run.body.impactedTargets;
  }

  it("takes the PR number as a string of digits, any case of SHA, and drops duplicate targets", async () => {
    const set = await s.api("setImpactedTargets", {
      ...target,
      pr: { number: "1", sha: sha.toUpperCase() },
      impactedTargets: ["//app/api", "//app/web", "//app/api"],
    });

    expect(set).toEqual({ status: 200, body: { prNumber: 1, prSha: sha, impactedTargets: 2 } });
    expect(await testedTargets()).toEqual(["//app/api", "//app/web"]);
  });

  it.each([
    { refusal: "a short SHA", pr: { number: 1, sha: "abc123" }, impactedTargets: ["//b"], path: "pr.sha" },
    {
      refusal: "an empty target",
      pr: { number: 1, sha: "" },
      impactedTargets: ["//b", ""],
      path: "impactedTargets.1",
    },
    {
      refusal: "a lowercase all",
      pr: { number: 1, sha: "" },
      impactedTargets: "all",
      path: "impactedTargets",
    },
    { refusal: "a number of 0", pr: { number: 0, sha: "" }, impactedTargets: "ALL", path: "pr.number" },
  ])("refuses $refusal with 400 and keeps the targets set before", async ({ pr, impactedTargets, path }) => {
    await s.api("setImpactedTargets", { ...target, pr: { number: 1, sha }, impactedTargets: ["//app"] });

    const refused = await s.api("setImpactedTargets", {
      ...target,
      pr: { number: pr.number, sha: pr.sha || sha },
      impactedTargets,
    });

    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: "invalid_request" });
    expect(refused.body.errors.map((error: { path: string }) => error.path)).toEqual([path]);
    expect(await testedTargets()).toEqual(["//app"]);
  });

  it('refuses a list over the 20 MiB body limit with 413, telling the client to send "ALL"', async () => {
    const huge = Array.from(
      { length: 400_000 },
      (_, i) => `//services/payments/ledger/reconciliation/rules:test_${i}`,
    );

    const refused = await s.api("setImpactedTargets", {
      ...target,
      pr: { number: 1, sha },
      impactedTargets: huge,
    });

    expect(refused.status).toBe(413);
    expect(refused.body).toMatchObject({ code: "payload_too_large" });
    expect(refused.body.detail).toContain('send "impactedTargets": "ALL" instead of the list');
    const all = await s.api("setImpactedTargets", {
      ...target,
      pr: { number: 1, sha },
      impactedTargets: "ALL",
    });
    expect(all.body).toEqual({ prNumber: 1, prSha: sha, impactedTargets: "ALL" });
    expect(await testedTargets()).toEqual(["ALL"]);
  });

  it("shows in the test run record the targets of the run, of its dependencies, and of the tested PRs", async () => {
    await s.api("updateQueue", { ...target, concurrency: 2 });
    s.repo.openPullRequest({ number: 2, title: "Change 2", author: "bob", files: { "src/2.ts": "two\n" } });
    const targets = { 1: ["//app/api"], 2: ["//app/web", "//app/api"] };
    for (const [number, impactedTargets] of Object.entries(targets)) {
      const pr = { number: Number(number), sha: s.repo.pullRequest(Number(number)).headSha };
      await s.api("setImpactedTargets", { ...target, pr, impactedTargets });
      await s.api("submitPullRequest", { ...target, pr: { number: pr.number } });
    }
    await s.settle();

    const pr = (await s.api("getSubmittedPullRequest", { ...target, pr: { number: 2 } })).body;
    const run = await s.api("getMergeQueueTestingDetails", { ...target, testRunId: pr.testRunId });

    expect(run.body).toMatchObject({
      testedPullRequests: [{ prNumber: 2 }],
      dependentPrs: [1],
      impactedTargets: ["//app/api", "//app/web"],
      impactedTargetsForTestedPrs: ["//app/web", "//app/api"],
    });
  });

  it("answers 404 for a queue that does not exist, storing nothing", async () => {
    const refused = await s.api("setImpactedTargets", {
      repo,
      targetBranch: "release",
      pr: { number: 1, sha },
      impactedTargets: ["//app"],
    });

    expect(refused).toMatchObject({ status: 404, body: { code: "queue_not_found" } });
    expect(await s.store.db.selectFrom("impacted_targets").selectAll().execute()).toEqual([]);
  });
});
