// The GitHub Action (action/action.yml) as the runner runs it: its committed bundle started with Node, nothing
// installed, its inputs as INPUT_* variables named the way the runner names them, GitHub Actions' own variables, and
// a GITHUB_OUTPUT file for its outputs, against a running service.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { repoRef as repo, type Scenario, startScenario } from "../support/queue-scenario.ts";
import { junitReport } from "../support/test-health.ts";

const run = promisify(execFile);
const actionDir = new URL("../../action/", import.meta.url).pathname;
const action = parse(readFileSync(join(actionDir, "action.yml"), "utf8"));
const entrySource = readFileSync(new URL("../../src/cli/action-main.ts", import.meta.url), "utf8");

/** The variable the runner sets for an input (the runner's rule: capitals, spaces as underscores, hyphens kept). */
const inputVariable = (name: string) => `INPUT_${name.replaceAll(" ", "_").toUpperCase()}`;

describe("action/action.yml", () => {
  it("is a JavaScript action on a maintained Node, run from its committed bundle", () => {
    expect(action.runs.using).toMatch(/^node(2[4-9]|[3-9]\d)$/);
    expect(action.runs.main).toBe("dist/index.mjs");
    expect(action.runs.steps).toBeUndefined();
  });

  it("reads every input it declares, and declares every input it reads", () => {
    const read = new Set([...entrySource.matchAll(/input\("([a-z-]+)"\)/g)].map((match) => match[1]));
    expect(read).toEqual(new Set(Object.keys(action.inputs)));
  });
});

describe("the Action's bundle", () => {
  let s: Scenario;
  let workspace: string;
  let sha: string;

  beforeEach(async () => {
    s = await startScenario();
    await s.api("createQueue", { repo, targetBranch: "main", mode: "parallel" });
    s.repo.openPullRequest({ number: 7, title: "Change 7", author: "alice", files: { "src/7.ts": "7\n" } });
    sha = s.repo.pullRequest(7).headSha;
    workspace = mkdtempSync(join(tmpdir(), "switchyard-action-"));
  });
  afterEach(async () => {
    await s.close();
    rmSync(workspace, { recursive: true, force: true });
  });

  /**
   * Runs action/dist/index.mjs as the runner would on a pull_request workflow of PR #7, with the given inputs (by
   * their names in action.yml); answers its exit code, its output and the step outputs it wrote.
   */
  async function step(inputs: Record<string, string>) {
    const event = join(workspace, "event.json");
    writeFileSync(
      event,
      JSON.stringify({ pull_request: { number: 7, head: { sha }, base: { ref: "main" } } }),
    );
    const outputFile = join(workspace, "github-output");
    writeFileSync(outputFile, "");
    const env = {
      // No switchyard on PATH: the bundle is all the step has.
      PATH: "/usr/bin:/bin",
      HOME: process.env.HOME ?? "/tmp",
      GITHUB_ACTIONS: "true",
      GITHUB_REPOSITORY: "acme/widgets",
      GITHUB_SHA: "f".repeat(40),
      GITHUB_REF: "refs/pull/7/merge",
      GITHUB_HEAD_REF: "feature",
      GITHUB_BASE_REF: "main",
      GITHUB_WORKSPACE: workspace,
      GITHUB_EVENT_PATH: event,
      GITHUB_JOB: "test",
      GITHUB_OUTPUT: outputFile,
      ...Object.fromEntries(
        Object.entries({ url: s.server.url, token: s.token, ...inputs }).map(([name, value]) => [
          inputVariable(name),
          value,
        ]),
      ),
    };
    const entry = join(actionDir, action.runs.main);
    const outputs = () =>
      Object.fromEntries(
        readFileSync(outputFile, "utf8")
          .split("\n")
          .filter((line) => line !== "")
          .map((line) => line.split("=") as [string, string]),
      );
    try {
      const { stdout } = await run(process.execPath, [entry], { cwd: workspace, env });
      return { code: 0, stdout, outputs: outputs() };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout + failed.stderr, outputs: outputs() };
    }
  }

  it("uploads the reports its globs match, then sets the PR's impacted targets", async () => {
    for (const [dir, cases] of [
      ["unit", [{ name: "adds" }, { name: "removes", outcome: "failed" as const }]],
      ["e2e", [{ name: "checks out" }]],
    ] as const) {
      mkdirSync(join(workspace, "reports", dir), { recursive: true });
      writeFileSync(join(workspace, "reports", dir, "TEST-widget.xml"), junitReport([...cases], dir));
    }
    const result = await step({
      "junit-paths": "reports/unit/*.xml\nreports/e2e/*.xml\n",
      variant: "linux",
      "impacted-targets": "//app:server\n//lib:core\n",
    });
    expect(result).toEqual({
      code: 0,
      stdout:
        "switchyard upload --junit-paths reports/unit/*.xml --junit-paths reports/e2e/*.xml --variant linux\n" +
        "uploaded 3 test results from 2 reports: 1 failing test, 0 of them quarantined\n" +
        "switchyard set-impacted-targets --target //app:server --target //lib:core\n" +
        `#7 at ${sha.slice(0, 12)} impacts 2 targets (acme/widgets main)\n`,
      outputs: { "test-results": "3", failures: "1", "quarantined-failures": "0", "impacted-targets": "2" },
    });
    expect(Object.keys(result.outputs).sort()).toEqual(Object.keys(action.outputs).sort());
    const uploads = await s.store.db
      .selectFrom("test_uploads")
      .select(["branch", "pr_number", "variant"])
      .execute();
    expect(uploads).toEqual([{ branch: "feature", pr_number: 7, variant: "linux" }]);
  });

  it("marks every target impacted with ALL, or reads them from a file", async () => {
    expect((await step({ "impacted-targets": "ALL" })).stdout).toContain(
      `#7 at ${sha.slice(0, 12)} impacts every target (acme/widgets main)\n`,
    );
    writeFileSync(join(workspace, "targets.txt"), "//a\n//b\n//c\n");
    const fromFile = await step({ "impacted-targets-file": "targets.txt" });
    expect(fromFile.stdout).toContain("impacts 3 targets");
    expect(fromFile.outputs).toEqual({ "impacted-targets": "3" });
  });

  it("fails the step when the service refuses, and says why", async () => {
    const result = await step({
      token: "sy_0000000000000000_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
      "impacted-targets": "ALL",
    });
    expect(result.code).toBe(1);
    // As an error annotation, which GitHub shows on the run and the pull request.
    expect(result.stdout).toContain(
      "::error::setting impacted targets was refused: the x-api-token is unknown or revoked",
    );
    expect(result.outputs).toEqual({});
  });
});
