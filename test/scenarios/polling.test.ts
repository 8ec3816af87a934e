// What the scheduler reads from GitHub between webhooks: mergeability GitHub was still computing (read again
// within seconds), and runs that a lost result or webhook left stuck.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { repoRef as repo, type Scenario, startScenario } from "../support/queue-scenario.ts";

describe("polling GitHub", () => {
  let s: Scenario;
  beforeEach(async () => {
    s = await startScenario();
  });
  afterEach(async () => {
    expect(s.fake.unhandled).toEqual([]);
    await s.close();
  });

  const record = async (number: number) =>
    (await s.api("getSubmittedPullRequest", { repo, targetBranch: "main", pr: { number } })).body;
  const openPr = (number: number) =>
    s.repo.openPullRequest({
      number,
      title: `Change ${number}`,
      author: "alice",
      files: { [`src/${number}.ts`]: `${number}\n` },
    });
  /** One scheduler pass, as the timer runs it, `ms` after the previous one (no poll: that is every minute). */
  const tickAfter = async (ms: number) => {
    s.clock.now += ms;
    await s.server.engine.scheduler.runOnce();
    await s.settle();
  };

  it("a PR whose mergeability GitHub is computing is ready within seconds, not at the next poll", async () => {
    await s.api("createQueue", { repo, targetBranch: "main", requiredStatuses: ["ci"] });
    await s.poll();
    openPr(1);
    s.repo.setMergeabilityPending(1, 3);
    await s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number: 1 } });
    await s.settle();
    expect(await record(1)).toMatchObject({ state: "not_ready" });

    // GitHub answers "still computing" a few more times: the PR is read again every few seconds till it settles.
    let waited = 0;
    while ((await record(1)).state === "not_ready" && waited < 10_000) {
      await tickAfter(1000);
      waited += 1000;
    }
    expect((await record(1)).state).toBe("testing");
    expect(waited).toBeLessThanOrEqual(7000);
  });
});
