// `promtool check metrics` (Debian's prometheus package) on real scrapes: the queue metrics of a queue that
// merged, failed and restarted PRs, and the operator's process metrics. .ci/run installs promtool, so in CI
// (CI set) a missing promtool fails instead of skipping.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/api-server.ts";
import { parseExposition } from "../support/prometheus-text.ts";
import { repoRef as repo, type Scenario, startScenario } from "../support/queue-scenario.ts";

const dashboardPath = join(import.meta.dirname, "../../docs/grafana/switchyard.json");
const promtoolFound = spawnSync("promtool", ["--version"]).status === 0;
const runs = promtoolFound || Boolean(process.env.CI);

function promtoolCheck(text: string) {
  expect(promtoolFound, "promtool is missing: install Debian's prometheus package (.ci/run does)").toBe(true);
  const result = spawnSync("promtool", ["check", "metrics"], { input: text, encoding: "utf8" });
  return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() };
}

describe.runIf(runs)("promtool check metrics", () => {
  let s: Scenario;
  let operator: TestServer | undefined;
  beforeEach(async () => {
    s = await startScenario();
  });
  afterEach(async () => {
    await operator?.close();
    await s.close();
  });

  it("accepts a scrape of queues that merged, failed and restarted PRs", async () => {
    await s.api("createQueue", { repo, targetBranch: "main", concurrency: 2, requiredStatuses: ["ci"] });
    s.repo.createBranch("release");
    await s.api("createQueue", { repo, targetBranch: "release", requiredStatuses: ["ci"] });
    for (const number of [1, 2, 3]) {
      s.repo.openPullRequest({
        number,
        title: `#${number}`,
        author: "alice",
        files: { [`f${number}`]: "x\n" },
      });
      await s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number } });
    }
    await s.settle();
    for (const [number, state] of [
      [1, "success"],
      [2, "failure"],
    ] as const) {
      const pr = await s.api("getSubmittedPullRequest", { repo, targetBranch: "main", pr: { number } });
      const run = await s.api("getMergeQueueTestingDetails", {
        repo,
        targetBranch: "main",
        testRunId: pr.body.testRunId,
      });
      s.clock.now += 420_000;
      s.repo.reportStatus(run.body.testBranchSha, "ci", state);
      await s.settle();
    }
    const response = await fetch(`${s.server.url}/v1/getMergeQueueMetrics`, {
      headers: { "x-api-token": s.token },
    });
    const text = await response.text();
    expect(text).toContain(
      'mq_pr_conclusions_total{repo="acme/widgets",branch="main",queue_type="main",conclusion="merged"} 1',
    );
    expect(promtoolCheck(text)).toEqual({ status: 0, output: "" });
  });

  it("accepts a scrape with series of the bisection pool beside the main line's", async () => {
    await s.api("createQueue", {
      repo,
      targetBranch: "main",
      requiredStatuses: ["ci"],
      batch: true,
      batchingMinSize: 2,
    });
    for (const number of [1, 2]) {
      s.repo.openPullRequest({
        number,
        title: `#${number}`,
        author: "alice",
        files: { [`f${number}`]: "x\n" },
      });
      await s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number } });
    }
    await s.settle();
    const pr = await s.api("getSubmittedPullRequest", { repo, targetBranch: "main", pr: { number: 1 } });
    const batch = await s.api("getMergeQueueTestingDetails", {
      repo,
      targetBranch: "main",
      testRunId: pr.body.testRunId,
    });
    s.clock.now += 420_000;
    s.repo.reportStatus(batch.body.testBranchSha, "ci", "failure");
    await s.settle();
    const response = await fetch(`${s.server.url}/v1/getMergeQueueMetrics`, {
      headers: { "x-api-token": s.token },
    });
    const text = await response.text();
    expect(text).toContain(
      'mq_testing_slots_active{repo="acme/widgets",branch="main",queue_type="bisection"} 1',
    );
    expect(text).toContain(
      'mq_test_runs_total{repo="acme/widgets",branch="main",queue_type="main",status="failed"} 1',
    );
    expect(promtoolCheck(text)).toEqual({ status: 0, output: "" });
  });

  it("accepts a scrape of a parallel queue with its lanes", async () => {
    await s.api("createQueue", { repo, targetBranch: "main", mode: "parallel", requiredStatuses: ["ci"] });
    s.repo.openPullRequest({ number: 1, title: "#1", author: "alice", files: { f1: "x\n" } });
    const sha = s.repo.pullRequest(1).headSha;
    await s.api("setImpactedTargets", {
      repo,
      targetBranch: "main",
      pr: { number: 1, sha },
      impactedTargets: "ALL",
    });
    await s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number: 1 } });
    await s.settle();
    const response = await fetch(`${s.server.url}/v1/getMergeQueueMetrics`, {
      headers: { "x-api-token": s.token },
    });
    const text = await response.text();
    expect(text).toContain('mq_lanes_in_flight{repo="acme/widgets",branch="main",queue_type="main"} 1');
    expect(promtoolCheck(text)).toEqual({ status: 0, output: "" });
  });

  it("the Grafana dashboard's queries are valid PromQL over metrics the scrape exposes", async () => {
    await s.api("createQueue", { repo, targetBranch: "main", requiredStatuses: ["ci"] });
    const scrape = await fetch(`${s.server.url}/v1/getMergeQueueMetrics`, {
      headers: { "x-api-token": s.token },
    });
    const exposed = new Set(parseExposition(await scrape.text()).samples.map((sample) => sample.name));
    const dashboard = JSON.parse(readFileSync(dashboardPath, "utf8"));
    const expressions: string[] = dashboard.panels.flatMap((panel: any) =>
      (panel.targets ?? []).map((target: any) => target.expr),
    );
    expect(expressions.length).toBeGreaterThan(10);
    for (const expression of expressions) {
      for (const [name] of expression.matchAll(/\bmq_\w+/g)) expect(exposed, expression).toContain(name);
    }
    // Grafana's variables as Grafana would fill them in, then checked as recording rules by promtool.
    const filled = expressions.map((expression) =>
      expression
        .replaceAll("$__rate_interval", "5m")
        .replaceAll("$__range", "1d")
        .replaceAll("$repo", ".*")
        .replaceAll("$branch", ".*"),
    );
    const rules = filled.map(
      (expr, index) => `      - record: dashboard:panel_${index}\n        expr: ${JSON.stringify(expr)}`,
    );
    const dir = mkdtempSync(join(tmpdir(), "switchyard-dashboard-"));
    try {
      const file = join(dir, "rules.yml");
      writeFileSync(file, `groups:\n  - name: dashboard\n    rules:\n${rules.join("\n")}\n`);
      const result = spawnSync("promtool", ["check", "rules", file], { encoding: "utf8" });
      expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("parses the operator's process metrics; the only remarks are prom-client's own gauge names", async () => {
    operator = await startTestServer(s.store, { env: { OPERATOR_METRICS: "true" } });
    const response = await fetch(`${operator.url}/metrics`);
    expect(response.status).toBe(200);
    const { output } = promtoolCheck(await response.text());
    // prom-client names three gauges nodejs_active_*_total; dashboards know them by those names.
    for (const remark of output.split("\n").filter((line) => line !== "")) {
      expect(remark).toMatch(/^nodejs_active_\w+_total non-counter metrics should not have "_total" suffix$/);
    }
  });
});
