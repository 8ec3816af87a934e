// What the scheduler reads from GitHub between webhooks: mergeability GitHub was still computing (read again
// within seconds), and runs that a lost result or webhook left stuck.
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { repoRef as repo, type Scenario, startScenario } from "../support/queue-scenario.ts";

describe("polling GitHub", () => {
  let s: Scenario;
  /**
   * The answer to the next call (`METHOD /path body`) this matches never reaches the service (GitHub did the work).
   */
  let loseAnswerTo: RegExp | null;
  beforeEach(async () => {
    loseAnswerTo = null;
    s = await startScenario({
      whileAppWaits: async (request) => {
        const body = request.method === "GET" ? "" : await request.clone().text();
        const call = `${request.method} ${decodeURIComponent(new URL(request.url).pathname)} ${body}`;
        if (loseAnswerTo?.test(call)) {
          loseAnswerTo = null;
          throw new Error("connection reset by peer");
        }
      },
    });
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
  const runOf = async (number: number) =>
    (
      await s.api("getMergeQueueTestingDetails", {
        repo,
        targetBranch: "main",
        testRunId: (await record(number)).testRunId,
      })
    ).body;
  /** The command never reports back: its worker died, or its result was lost for good. */
  const loseCommand = async (type: string) => {
    await s.store.db
      .updateTable("outbox_commands")
      .set({ completed_at: s.clock.now })
      .where("completed_at", "is", null)
      .where(sql<boolean>`command like ${`%"type":"${type}"%`}`)
      .execute();
  };
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

  it("a test branch GitHub built whose result never reached the queue is taken up at the next poll", async () => {
    // Required statuses from the repository: they are resolved by the same command, and lost with it.
    s.repo.commit("main", { ".github/switchyard.yml": "merge:\n  required_statuses:\n    - ci\n" });
    await s.api("createQueue", { repo, targetBranch: "main" });
    openPr(1);
    // The command's last call: the test branch is created at the commit built for it.
    loseAnswerTo = /^POST \/repos\/acme\/widgets\/git\/refs .*"refs\/heads\/mq\//;
    await s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number: 1 } });
    await s.settle();
    await loseCommand("create_test_branch");
    const built = s.repo.branch(`mq/main/${(await record(1)).testRunId}`) as string;
    expect(built).toBeDefined();
    expect((await runOf(1)).testBranchSha).toBeNull();

    s.repo.reportStatus(built, "ci", "success");
    s.fake.takeWebhooks(); // CI's result came before the queue knew the commit: the poll must read it
    s.clock.now += 60_000;
    await s.poll();
    expect(await runOf(1)).toMatchObject({ testBranchSha: built });
    expect((await record(1)).state).toBe("merged");
  });

  it("a test branch that does not hold every PR is never taken for the run's commit", async () => {
    await s.api("createQueue", { repo, targetBranch: "main", requiredStatuses: ["ci"] });
    openPr(1);
    loseAnswerTo = /^POST \/repos\/acme\/widgets\/merges /;
    await s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number: 1 } });
    await s.settle();
    await loseCommand("create_test_branch");
    // A test branch at the target's head, without PR 1 (as a build cut short would leave it).
    s.repo.createBranch(`mq/main/${(await record(1)).testRunId}`, "main");

    s.clock.now += 60_000;
    await s.poll();
    expect((await runOf(1)).testBranchSha).toBeNull();
    expect((await record(1)).state).toBe("testing");
  });
});
