// GET /v1/getMergeQueueMetrics (docs/monitoring.md#merge-queue-metrics): a queue driven through known events on a fake GitHub, then
// scraped; the numbers are exactly what the queue did, the rolling hour moves on, the counters do not.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tokenFor } from "../support/api-server.ts";
import { testDialects } from "../support/database.ts";
import { histogram, parseExposition } from "../support/prometheus-text.ts";
import { installationId, repoRef as repo, type Scenario, startScenario } from "../support/queue-scenario.ts";

const minute = 60_000;
const widgets = { repo: "acme/widgets", branch: "main", queue_type: "main" };

describe.each(testDialects)("queue metrics on %s", (dialect) => {
  let s: Scenario;
  beforeEach(async () => {
    s = await startScenario({ dialect });
  });
  afterEach(async () => {
    expect(s.fake.unhandled).toEqual([]);
    await s.close();
  });

  const scrape = (query = "", headers: Record<string, string> = { "x-api-token": s.token }) =>
    fetch(`${s.server.url}/v1/getMergeQueueMetrics${query}`, { headers });
  const metrics = async (query = "") => {
    const response = await scrape(query);
    expect(response.status).toBe(200);
    return parseExposition(await response.text());
  };
  const openPr = (number: number) =>
    s.repo.openPullRequest({
      number,
      title: `Change ${number}`,
      author: "alice",
      files: { [`src/pr${number}.ts`]: `${number}\n` },
    });
  const submit = async (number: number) => {
    expect((await s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number } })).status).toBe(
      200,
    );
    await s.settle();
  };
  const ciReports = async (number: number, state: "success" | "failure") => {
    const { testRunId } = (
      await s.api("getSubmittedPullRequest", { repo, targetBranch: "main", pr: { number } })
    ).body;
    const run = (await s.api("getMergeQueueTestingDetails", { repo, targetBranch: "main", testRunId })).body;
    s.repo.reportStatus(run.testBranchSha, "ci", state);
    await s.settle();
  };
  const at = (minutes: number, start: number) => (s.clock.now = start + minutes * minute);

  it("counts depth, slots, conclusions, restarts and the three durations of what the queue did", async () => {
    const start = s.clock.now;
    await s.api("createQueue", { repo, targetBranch: "main", concurrency: 2, requiredStatuses: ["ci"] });
    for (const number of [1, 2, 3, 4, 5]) openPr(number);

    // 10:00 #1 and #2 start testing at once; 10:05 #3 waits for a slot.
    await submit(1);
    await submit(2);
    at(5, start);
    await submit(3);
    // 10:10 #1 passes (a 10-minute run) and merges; #3 starts on top of #2 after waiting 5 minutes.
    at(10, start);
    await ciReports(1, "success");
    // 10:20 #2 fails (a 20-minute run): #3's run built on it is cancelled and #3 restarts without it.
    at(20, start);
    await ciReports(2, "failure");
    await submit(4);
    // 10:25 #4 is cancelled five minutes after it was submitted; 10:30 #3 is restarted by hand.
    at(25, start);
    await s.api("cancelPullRequest", { repo, targetBranch: "main", pr: { number: 4 } });
    await s.settle();
    at(30, start);
    await s.api("restartTestsOnPullRequest", { repo, targetBranch: "main", pr: { number: 3 } });
    await s.settle();
    // #5 waits for GitHub to compute its mergeability.
    s.repo.setMergeabilityPending(5, 1000);
    await submit(5);
    at(40, start);

    const response = await scrape();
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const m = parseExposition(await response.text());
    expect(m.value("mq_depth_current", widgets)).toBe(1);
    expect(m.value("mq_awaiting_mergeability", widgets)).toBe(1);
    expect(m.value("mq_testing_slots_active", widgets)).toBe(1);
    expect(m.matching("mq_queue_state", widgets).map((q) => [q.labels.state, q.value])).toEqual([
      ["running", 1],
      ["paused", 0],
      ["draining", 0],
      ["switching_modes", 0],
    ]);
    for (const conclusion of ["merged", "failed", "cancelled"]) {
      expect(m.value("mq_pr_conclusions_1h_total", { ...widgets, conclusion })).toBe(1);
      expect(m.value("mq_pr_conclusions_total", { ...widgets, conclusion })).toBe(1);
    }
    // #3 twice: when #2 ahead of it failed, and by hand.
    expect(m.value("mq_pr_restarts_1h_total", widgets)).toBe(2);
    // Waits: #1, #2 and #4 started at once, #3 after 5 minutes (its restarts are no new wait).
    expect(histogram(m, "mq_pr_wait_duration_1h_seconds", widgets)).toEqual({
      buckets: {
        "60": 3,
        "300": 4,
        "600": 4,
        "900": 4,
        "1800": 4,
        "3600": 4,
        "5400": 4,
        "7200": 4,
        "+Inf": 4,
      },
      count: 4,
      sum: 300,
    });
    // Runs that passed or failed: #1's 10 minutes and #2's 20; the three cancelled runs never finished.
    expect(histogram(m, "mq_pr_test_duration_1h_seconds", widgets)).toEqual({
      buckets: {
        "60": 0,
        "300": 0,
        "600": 1,
        "900": 1,
        "1800": 2,
        "3600": 2,
        "5400": 2,
        "7200": 2,
        "+Inf": 2,
      },
      count: 2,
      sum: 1800,
    });
    // Submitted to concluded: #4 cancelled after 5 minutes, #1 merged after 10, #2 failed after 20.
    expect(histogram(m, "mq_pr_time_in_queue_1h_seconds", widgets)).toEqual({
      buckets: {
        "60": 0,
        "300": 1,
        "600": 2,
        "900": 2,
        "1800": 3,
        "3600": 3,
        "5400": 3,
        "7200": 3,
        "+Inf": 3,
      },
      count: 3,
      sum: 2100,
    });
    expect(m.value("mq_test_runs_total", { ...widgets, status: "succeeded" })).toBe(1);
    expect(m.value("mq_test_runs_total", { ...widgets, status: "failed" })).toBe(1);
    expect(m.value("mq_test_runs_total", { ...widgets, status: "cancelled" })).toBe(3);

    // An hour later the rolling values are empty; the gauges and cumulative counters stand.
    at(100, start);
    const later = await metrics();
    expect(later.value("mq_pr_restarts_1h_total", widgets)).toBe(0);
    expect(later.matching("mq_pr_conclusions_1h_total", widgets).map((c) => c.value)).toEqual([0, 0, 0]);
    for (const name of ["wait_duration", "test_duration", "time_in_queue"]) {
      expect(histogram(later, `mq_pr_${name}_1h_seconds`, widgets)).toMatchObject({ count: 0, sum: 0 });
    }
    expect(later.value("mq_depth_current", widgets)).toBe(1);
    expect(later.value("mq_pr_conclusions_total", { ...widgets, conclusion: "merged" })).toBe(1);
    expect(later.value("mq_test_runs_total", { ...widgets, status: "cancelled" })).toBe(3);
  });

  it("shows the runs of the bisection pool apart, as queue_type bisection", async () => {
    const start = s.clock.now;
    const bisection = { ...widgets, queue_type: "bisection" };
    await s.api("createQueue", {
      repo,
      targetBranch: "main",
      requiredStatuses: ["ci"],
      batch: true,
      batchingMinSize: 2,
      optimizationMode: "bisection_skip_redundant_tests",
    });
    openPr(1);
    openPr(2);
    await submit(1);
    await submit(2);
    // 10:10 the batch of #1 and #2 fails (a 10-minute main-line run); #1 alone is tested in the bisection pool.
    at(10, start);
    await ciReports(1, "failure");
    const during = await metrics();
    expect(during.value("mq_testing_slots_active", widgets)).toBe(0);
    expect(during.value("mq_testing_slots_active", bisection)).toBe(1);
    // 10:15 #1 passes alone (a 5-minute bisection run) and goes back to the main line; the batch's failure is
    // #2's, which fails.
    at(15, start);
    await ciReports(1, "success");
    expect(
      (await s.api("getSubmittedPullRequest", { repo, targetBranch: "main", pr: { number: 2 } })).body.state,
    ).toBe("failed");
    const cleared = await metrics();
    expect(cleared.value("mq_testing_slots_active", bisection)).toBe(0);
    expect(cleared.value("mq_testing_slots_active", widgets)).toBe(1);
    // 10:25 #1 passes in the main line (a 10-minute run) and merges.
    at(25, start);
    await ciReports(1, "success");

    const m = await metrics();
    expect(m.value("mq_testing_slots_active", widgets)).toBe(0);
    for (const [labels, status, count] of [
      [widgets, "failed", 1],
      [widgets, "succeeded", 1],
      [bisection, "failed", 0],
      [bisection, "succeeded", 1],
    ] as const) {
      expect(m.value("mq_test_runs_total", { ...labels, status }), `${labels.queue_type} ${status}`).toBe(
        count,
      );
    }
    expect(histogram(m, "mq_pr_test_duration_1h_seconds", widgets)).toMatchObject({ count: 2, sum: 1200 });
    expect(histogram(m, "mq_pr_test_duration_1h_seconds", bisection)).toMatchObject({ count: 1, sum: 300 });
    // PRs are the queue's, whichever pool tested them: their series stay main-line only.
    expect(m.matching("mq_pr_conclusions_total", { queue_type: "bisection" })).toEqual([]);
    expect(m.value("mq_pr_conclusions_total", { ...widgets, conclusion: "merged" })).toBe(1);
  });

  it("the rolling hour leaves out what happened exactly an hour ago", async () => {
    const start = s.clock.now;
    await s.api("createQueue", { repo, targetBranch: "main", requiredStatuses: ["ci"] });
    openPr(1);
    await submit(1);
    await s.api("cancelPullRequest", { repo, targetBranch: "main", pr: { number: 1 } });
    at(60, start);
    const justBefore = s.clock.now - 1;
    s.clock.now = justBefore;
    expect(
      (await metrics()).value("mq_pr_conclusions_1h_total", { ...widgets, conclusion: "cancelled" }),
    ).toBe(1);
    s.clock.now = justBefore + 1;
    expect(
      (await metrics()).value("mq_pr_conclusions_1h_total", { ...widgets, conclusion: "cancelled" }),
    ).toBe(0);
  });

  it("counts the lanes of a parallel queue: PRs in flight that share no impacted target", async () => {
    await s.api("createQueue", {
      repo,
      targetBranch: "main",
      mode: "parallel",
      concurrency: 3,
      requiredStatuses: ["ci"],
    });
    const targets = { 1: ["//app/api"], 2: ["//docs"], 3: ["//app/api", "//app/web"] };
    for (const [number, impactedTargets] of Object.entries(targets)) {
      openPr(Number(number));
      const sha = s.repo.pullRequest(Number(number)).headSha;
      await s.api("setImpactedTargets", { repo, targetBranch: "main", pr: { number, sha }, impactedTargets });
      await submit(Number(number));
    }

    const m = await metrics();

    expect(m.value("mq_testing_slots_active", widgets)).toBe(3);
    expect(m.value("mq_lanes_in_flight", widgets)).toBe(2);
  });

  it("shows a paused queue as paused", async () => {
    await s.api("createQueue", { repo, targetBranch: "main", requiredStatuses: ["ci"] });
    await s.api("updateQueue", { repo, targetBranch: "main", state: "paused" });
    const m = await metrics();
    expect(m.value("mq_queue_state", { ...widgets, state: "paused" })).toBe(1);
    expect(m.value("mq_queue_state", { ...widgets, state: "running" })).toBe(0);
  });

  describe("scope", () => {
    beforeEach(async () => {
      s.fake.createRepository("acme/gadgets", { installationId });
      s.fake.createRepository("globex/things", { installationId: 777 });
      s.repo.createBranch("release");
      s.fake.takeWebhooks();
      await s.api("createQueue", { repo, targetBranch: "main", requiredStatuses: ["ci"] });
      await s.api("createQueue", { repo, targetBranch: "release", requiredStatuses: ["ci"] });
      const gadgets = { host: "github.com", owner: "acme", name: "gadgets" };
      expect((await s.api("createQueue", { repo: gadgets, targetBranch: "main" })).status).toBe(200);
      const globex = await tokenFor(s.store, "globex");
      const things = { repo: { host: "github.com", owner: "globex", name: "things" }, targetBranch: "main" };
      expect((await s.server.post("createQueue", things, globex)).status).toBe(200);
    });

    it("without repo: every queue of the token's organization, and no other organization's", async () => {
      const m = await metrics();
      expect(m.matching("mq_depth_current").map((sample) => sample.labels)).toEqual([
        { repo: "acme/gadgets", branch: "main", queue_type: "main" },
        widgets,
        { repo: "acme/widgets", branch: "release", queue_type: "main" },
      ]);
    });

    it("with repo and repoHost: that repository's queues only; names compare case-insensitively", async () => {
      const m = await metrics("?repo=ACME/Gadgets&repoHost=GitHub.com");
      expect(m.matching("mq_depth_current").map((sample) => sample.labels.repo)).toEqual(["acme/gadgets"]);
    });

    it("another organization's repository is 403, whether or not it exists", async () => {
      for (const name of ["things", "nothing-here"]) {
        const response = await scrape(`?repo=globex/${name}&repoHost=github.com`);
        expect(response.status).toBe(403);
        expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
        expect(((await response.json()) as any).code).toBe("forbidden");
      }
    });
  });

  it("answers a repo without queues with every family and no series", async () => {
    const m = await metrics("?repo=acme/widgets&repoHost=github.com");
    expect(m.samples).toEqual([]);
    expect([...m.types.keys()]).toHaveLength(13);
  });

  it("refuses repo without repoHost (and the reverse), a malformed repo and another host with 400", async () => {
    const cases = [
      ["?repo=acme/widgets", "invalid_request"],
      ["?repoHost=github.com", "invalid_request"],
      ["?repo=widgets&repoHost=github.com", "invalid_request"],
      ["?repo=acme/widgets&repoHost=gitlab.com", "unsupported_host"],
    ];
    for (const [query, code] of cases) {
      const response = await scrape(query);
      expect(response.status, query).toBe(400);
      expect(((await response.json()) as any).code, query).toBe(code);
    }
  });

  it("needs a token: x-api-token, or Authorization: Bearer for scrapers that cannot send other headers", async () => {
    const missing = await scrape("", {});
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as any).code).toBe("unauthenticated");
    expect((await scrape("", { "x-api-token": "sy_nope" })).status).toBe(401);
    expect((await scrape("", { authorization: `Bearer ${s.token}` })).status).toBe(200);
    // Only the scrape takes a bearer token; every other endpoint wants x-api-token (docs/api.md#tokens-and-organizations).
    const getQueue = await fetch(`${s.server.url}/v1/getQueue`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${s.token}` },
      body: JSON.stringify({ repo, targetBranch: "main" }),
    });
    expect(getQueue.status).toBe(401);
  });

  it("is a GET: a POST is 405 and says so", async () => {
    const response = await s.server.post("getMergeQueueMetrics", {}, s.token);
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET");
    expect(((await response.json()) as any).detail).toMatch(/use GET/);
  });
});
