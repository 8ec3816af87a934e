// docs/queue.md#failures: a failure waits for the PRs behind it when pendingFailureDepth says so, and a later passing
// run vouches for a flaky failure when optimistic merging is on.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { repoRef as repo, type Scenario, startScenario } from "../support/queue-scenario.ts";

describe("pending failures and optimistic merging", () => {
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
  const report = async (number: number, state: "success" | "failure") => {
    const pr = await record(number);
    const run = (
      await s.api("getMergeQueueTestingDetails", { repo, targetBranch: "main", testRunId: pr.testRunId })
    ).body;
    s.repo.reportStatus(run.testBranchSha, "ci", state);
    await s.settle();
  };
  const queueTwo = async (settings: Record<string, unknown>) => {
    await s.api("createQueue", {
      repo,
      targetBranch: "main",
      requiredStatuses: ["ci"],
      concurrency: 2,
      ...settings,
    });
    for (const n of [1, 2]) {
      s.repo.openPullRequest({
        number: n,
        title: `Change ${n}`,
        author: "alice",
        files: { [`src/${n}.ts`]: `${n}\n` },
      });
      await s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number: n } });
    }
    await s.settle();
  };

  it("a flaky failure is rescued by the passing run behind it", async () => {
    await queueTwo({ pendingFailureDepth: 1, canOptimisticallyMerge: true });
    await report(1, "failure");
    expect((await record(1)).state).toBe("pending_failure");
    await report(2, "success");
    expect((await record(1)).state).toBe("merged");
    expect((await record(2)).state).toBe("merged");
    expect(s.repo.fileAt("main", "src/1.ts")).toBe("1\n");
  });

  it("the failed PR fails once every run behind it within the depth failed too", async () => {
    await queueTwo({ pendingFailureDepth: 1, canOptimisticallyMerge: true });
    await report(1, "failure");
    expect((await record(1)).state).toBe("pending_failure");
    await report(2, "failure");
    expect(await record(1)).toMatchObject({ state: "failed", stateReason: "tests_failed" });
    expect((await record(2)).state).toBe("testing");
    await report(2, "success");
    expect((await record(2)).state).toBe("merged");
    expect(s.repo.fileAt("main", "src/1.ts")).toBeUndefined();
  });

  it("without optimistic merging nothing behind can vouch for a failure, so it fails at once", async () => {
    await queueTwo({ pendingFailureDepth: 1 });
    await report(1, "failure");
    expect(await record(1)).toMatchObject({ state: "failed", stateReason: "tests_failed" });
  });
});
