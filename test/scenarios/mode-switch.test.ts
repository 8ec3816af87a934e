// Changing the mode while a run is in flight, end to end (docs/queue.md#switching-modes): the queue switches modes, starts no new
// run, and once the run ended applies the new mode; in parallel mode PRs wait for their impacted targets.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { testDialects } from "../support/database.ts";
import { repoRef as repo, type Scenario, startScenario } from "../support/queue-scenario.ts";

describe.each(testDialects)("switching modes on %s", (dialect) => {
  let s: Scenario;
  beforeEach(async () => {
    s = await startScenario({ dialect });
    await s.api("createQueue", { repo, targetBranch: "main", requiredStatuses: ["ci"], concurrency: 2 });
    for (const number of [1, 2, 3]) {
      s.repo.openPullRequest({
        number,
        title: `Change ${number}`,
        author: "alice",
        files: { [`src/${number}.ts`]: `${number}\n` },
      });
    }
  });
  afterEach(async () => {
    expect(s.fake.unhandled).toEqual([]);
    await s.close();
  });

  const target = { repo, targetBranch: "main" };
  const submit = (number: number) => s.api("submitPullRequest", { ...target, pr: { number } });
  const record = async (number: number) =>
    (await s.api("getSubmittedPullRequest", { ...target, pr: { number } })).body;
  const queue = async () => (await s.api("getQueue", target)).body;
  const passRunOf = async (number: number) => {
    const { testRunId } = await record(number);
    const run = (await s.api("getMergeQueueTestingDetails", { ...target, testRunId })).body;
    s.repo.reportStatus(run.testBranchSha, "ci", "success");
    await s.settle();
  };
  const setImpactedTargets = (number: number, impactedTargets: string[]) =>
    s.api("setImpactedTargets", {
      ...target,
      pr: { number, sha: s.repo.pullRequest(number).headSha },
      impactedTargets,
    });

  it("holds new runs while a run is in flight, then tests in parallel mode once targets are set", async () => {
    await submit(1);
    await s.settle();
    expect((await record(1)).state).toBe("testing");

    expect((await s.api("updateQueue", { ...target, mode: "parallel" })).status).toBe(200);
    await submit(2);
    await s.settle();

    expect(await queue()).toMatchObject({ state: "switching_modes" });
    // With a free slot of concurrency 2, #2 would start at once in a running queue.
    expect(await record(2)).toMatchObject({ state: "pending", testRunId: null });

    await passRunOf(1);

    expect((await record(1)).state).toBe("merged");
    expect(await queue()).toMatchObject({ state: "running", mode: "parallel" });
    expect(await record(2)).toMatchObject({
      state: "not_ready",
      readiness: { requiresImpactedTargets: true, hasImpactedTargets: false },
    });

    await submit(3);
    await setImpactedTargets(2, ["//api"]);
    await setImpactedTargets(3, ["//web"]);
    await s.settle();

    expect((await record(2)).state).toBe("testing");
    expect((await record(3)).state).toBe("testing");
    await passRunOf(3);
    await passRunOf(2);

    expect([(await record(2)).state, (await record(3)).state]).toEqual(["merged", "merged"]);
    expect((await queue()).enqueuedPullRequests).toEqual([]);
    for (const number of [1, 2, 3]) expect(s.repo.fileAt("main", `src/${number}.ts`)).toBe(`${number}\n`);
  });
});
