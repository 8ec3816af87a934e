// GitHub refusing, failing or not answering: a refusal that states a fact about the PR ends it at once, and a
// request to the API that needs an unavailable GitHub answers 502 within GITHUB_TIMEOUT_MS, naming the call.
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { repoRef as repo, type Scenario, startScenario } from "../support/queue-scenario.ts";

describe("GitHub failures", () => {
  let s: Scenario;
  afterEach(async () => {
    await s.close();
  });

  const record = async (number: number) =>
    (await s.api("getSubmittedPullRequest", { repo, targetBranch: "main", pr: { number } })).body;

  describe("a merge GitHub refuses", () => {
    const mergeCalls = () =>
      s.fake.calls().filter((call) => call === "PUT /repos/acme/widgets/pulls/1/merge");

    /** Queues PR 1 with squash merges and lets its run pass, with GitHub answering the merge with `status`. */
    const passWithMergeRefused = async (status: number, message: string) => {
      s = await startScenario();
      await s.api("createQueue", {
        repo,
        targetBranch: "main",
        requiredStatuses: ["ci"],
        mergeMethod: "squash",
      });
      s.repo.openPullRequest({
        number: 1,
        title: "Change 1",
        author: "alice",
        files: { "src/one.ts": "one\n" },
      });
      await s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number: 1 } });
      await s.settle();
      const pr = await record(1);
      const run = (
        await s.api("getMergeQueueTestingDetails", { repo, targetBranch: "main", testRunId: pr.testRunId })
      ).body;
      s.fake.failNext({
        method: "PUT",
        path: "/repos/acme/widgets/pulls/1/merge",
        status,
        message,
        times: 4,
      });
      s.repo.reportStatus(run.testBranchSha, "ci", "success");
      const started = performance.now();
      await s.settle();
      return performance.now() - started;
    };

    it("405: the PR fails at once with GitHub's message, asked once", async () => {
      const elapsed = await passWithMergeRefused(405, "Pull Request is not mergeable");
      expect(await record(1)).toMatchObject({
        state: "failed",
        stateReason: "merge_rejected",
        stateDetail: "GitHub refused the merge: Pull Request is not mergeable",
      });
      expect(mergeCalls()).toHaveLength(1);
      expect(elapsed).toBeLessThan(1000);
    });

    it("409 (its head moved): the PR leaves the queue at once as updated, asked once", async () => {
      const elapsed = await passWithMergeRefused(
        409,
        "Head branch was modified. Review and try the merge again.",
      );
      expect(await record(1)).toMatchObject({ state: "cancelled", stateReason: "pr_updated" });
      expect(mergeCalls()).toHaveLength(1);
      expect(elapsed).toBeLessThan(1000);
    });
  });

  describe("a request to the API that needs GitHub, when GitHub is unavailable", () => {
    const timeoutMs = 300;
    /** Calls to these paths get their answer only long after the service stopped waiting. */
    const hanging = new Set<string>();
    const start = () =>
      startScenario({
        env: { GITHUB_TIMEOUT_MS: String(timeoutMs) },
        whileAppWaits: async (request) => {
          if (hanging.has(new URL(request.url).pathname))
            await sleep(10 * timeoutMs, undefined, { ref: false });
        },
      });
    afterEach(() => hanging.clear());

    const expectUnavailable = async (
      call: Promise<{ status: number; body: any }>,
      failedCall: string,
    ): Promise<void> => {
      const started = performance.now();
      const { status, body } = await call;
      expect(performance.now() - started).toBeLessThan(timeoutMs + 1000);
      expect(status).toBe(502);
      expect(body).toMatchObject({ status: 502, code: "github_unavailable" });
      expect(body.detail).toContain(failedCall);
    };
    const createQueue = () => s.api("createQueue", { repo, targetBranch: "main", requiredStatuses: ["ci"] });
    const submit = () => s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number: 1 } });

    it("createQueue answers 502 when the installation look-up hangs, or the branch read fails", async () => {
      s = await start();
      hanging.add("/repos/acme/widgets/installation");
      await expectUnavailable(createQueue(), "GET /repos/acme/widgets/installation");
      hanging.clear();
      s.fake.failNext({ method: "GET", path: "/repos/acme/widgets/git/ref/heads/main", status: 500 });
      await expectUnavailable(createQueue(), "GET /repos/acme/widgets/git/ref/heads/main");
      expect((await createQueue()).status).toBe(200);
    });

    it("submitPullRequest answers 502 when reading the PR hangs or fails", async () => {
      s = await start();
      await createQueue();
      s.repo.openPullRequest({
        number: 1,
        title: "Change 1",
        author: "alice",
        files: { "src/one.ts": "one\n" },
      });
      hanging.add("/repos/acme/widgets/pulls/1");
      await expectUnavailable(submit(), "GET /repos/acme/widgets/pulls/1");
      hanging.clear();
      s.fake.failNext({ method: "GET", path: "/repos/acme/widgets/pulls/1", status: 503 });
      await expectUnavailable(submit(), "GET /repos/acme/widgets/pulls/1");
      expect((await submit()).status).toBe(200);
    });
  });

  describe("a request to the API that GitHub rate-limits or refuses", () => {
    const submit = () => s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number: 1 } });
    const startWithPr = async () => {
      s = await startScenario();
      await s.api("createQueue", { repo, targetBranch: "main", requiredStatuses: ["ci"] });
      s.repo.openPullRequest({
        number: 1,
        title: "Change 1",
        author: "alice",
        files: { "src/one.ts": "one\n" },
      });
    };

    it("a secondary rate limit answers 503 github_rate_limited with GitHub's retry-after, then works", async () => {
      await startWithPr();
      s.fake.failNext({
        method: "GET",
        path: "/repos/acme/widgets/pulls/1",
        status: 403,
        message: "You have exceeded a secondary rate limit",
        headers: { "retry-after": "30" },
      });
      const response = await s.server.post(
        "submitPullRequest",
        { repo, targetBranch: "main", pr: { number: 1 } },
        s.token,
      );
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("30");
      expect(await response.json()).toMatchObject({ status: 503, code: "github_rate_limited" });
      expect((await submit()).status).toBe(200);
    });

    it("a refusal GitHub would repeat answers 502 github_refused with GitHub's words, never 500", async () => {
      await startWithPr();
      s.fake.failNext({
        method: "GET",
        path: "/repos/acme/widgets/pulls/1",
        status: 403,
        message: "Resource not accessible by integration",
      });
      const { status, body } = await submit();
      expect(status).toBe(502);
      expect(body).toMatchObject({ status: 502, code: "github_refused" });
      expect(body.detail).toContain("GET /repos/acme/widgets/pulls/1");
      expect(body.detail).toContain("Resource not accessible by integration");
    });
  });
});
