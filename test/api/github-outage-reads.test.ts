// A GitHub outage leaves the queue's own records readable: every read endpoint answers from the database, without
// asking GitHub (404 for what does not exist, 403 for another organization), and so do the commands that only
// change the queue's records. Only a command that must act on GitHub (a submission) answers 502/503.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { repoRef as repo, type Scenario, startScenario } from "../support/queue-scenario.ts";

describe("reads while GitHub is down", () => {
  let s: Scenario;
  let testRunId: string;
  beforeEach(async () => {
    s = await startScenario();
    await s.api("createQueue", { repo, targetBranch: "main", requiredStatuses: ["ci"] });
    s.repo.openPullRequest({ number: 1, title: "One", author: "alice", files: { "src/1.ts": "1\n" } });
    s.repo.openPullRequest({ number: 2, title: "Two", author: "alice", files: { "src/2.ts": "2\n" } });
    await s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number: 1 } });
    await s.settle();
    testRunId = (await s.api("getSubmittedPullRequest", { repo, targetBranch: "main", pr: { number: 1 } }))
      .body.testRunId;
    expect(testRunId).toEqual(expect.any(String));
    s.github.down = true;
    // Longer than any cache of what GitHub said: the answers come from the records, not from a fresh memory.
    s.clock.now += 3 * 3600 * 1000;
  });
  afterEach(async () => {
    s.github.down = false;
    await s.close();
  });

  const target = { repo, targetBranch: "main" };

  it("answers every queue read from the database, and never asks GitHub", async () => {
    const reads: [string, Record<string, unknown>, number, Record<string, unknown>?][] = [
      [
        "getQueue",
        target,
        200,
        { branch: "main", enqueuedPullRequests: [expect.objectContaining({ prNumber: 1 })] },
      ],
      ["getQueue", { ...target, targetBranch: "release/9" }, 404, { code: "queue_not_found" }],
      ["listQueues", { repo }, 200, { queues: [expect.objectContaining({ branch: "main", depth: 1 })] }],
      ["getSubmittedPullRequest", { ...target, pr: { number: 1 } }, 200, { prNumber: 1, state: "testing" }],
      // A PR number as a digit string, as some clients send it.
      ["getSubmittedPullRequest", { ...target, pr: { number: "1" } }, 200, { prNumber: 1 }],
      [
        "getSubmittedPullRequest",
        { ...target, pr: { number: 2 } },
        404,
        { code: "pull_request_not_submitted" },
      ],
      ["listPullRequests", target, 200, { pullRequests: [expect.objectContaining({ prNumber: 1 })] }],
      ["getMergeQueueTestingDetails", { ...target, testRunId }, 200, { id: testRunId }],
      [
        "getMergeQueueTestingDetails",
        { ...target, testRunId: "no-such-run" },
        404,
        { code: "test_run_not_found" },
      ],
      ["getQueue", { ...target, repo: { ...repo, name: "never-seen" } }, 404, { code: "queue_not_found" }],
      ["listQueues", { repo: { ...repo, name: "never-seen" } }, 200, { queues: [] }],
      ["getQueue", { ...target, repo: { ...repo, owner: "other-org" } }, 403, { code: "forbidden" }],
      ["listQueues", { repo: { ...repo, owner: "other-org" } }, 403, { code: "forbidden" }],
    ];
    for (const [path, body, status, expected] of reads) {
      const answer = await s.api(path, body);
      expect({ path, body, status: answer.status }).toEqual({ path, body, status });
      if (expected !== undefined) expect(answer.body).toMatchObject(expected);
    }
    for (const query of ["", "?repo=acme/widgets&repoHost=github.com"]) {
      const metrics = await fetch(`${s.server.url}/v1/getMergeQueueMetrics${query}`, {
        headers: { "x-api-token": s.token },
      });
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toContain(
        `mq_depth_current{repo="acme/widgets",branch="main",queue_type="main"} 1`,
      );
    }
    const unknown = await fetch(
      `${s.server.url}/v1/getMergeQueueMetrics?repo=acme/never-seen&repoHost=github.com`,
      {
        headers: { "x-api-token": s.token },
      },
    );
    expect(unknown.status).toBe(200);
    expect(await unknown.text()).not.toContain("never-seen");
    expect(s.github.attempts).toBe(0);
  });

  it("changes the queue's own records without GitHub; a submission answers that GitHub is unavailable", async () => {
    const paused = await s.api("updateQueue", { ...target, state: "paused" });
    expect(paused).toMatchObject({ status: 200, body: { state: "paused" } });
    expect(s.github.attempts).toBe(0);

    const submitted = await s.api("submitPullRequest", { ...target, pr: { number: 2 } });
    expect([502, 503]).toContain(submitted.status);
    expect(submitted.body).toMatchObject({ code: "github_unavailable" });
    expect(s.github.attempts).toBeGreaterThan(0);
  });
});
