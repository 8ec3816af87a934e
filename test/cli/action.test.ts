// The GitHub Action (action/action.yml): its step script run as the runner runs it, with its inputs as INPUT_*
// variables and GitHub Actions' own variables, the packaged client on PATH, against a running service.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { installPackedCli, type PackedCli } from "../support/packed-cli.ts";
import { repoRef as repo, type Scenario, startScenario } from "../support/queue-scenario.ts";
import { junitReport } from "../support/test-health.ts";

const run = promisify(execFile);
const actionDir = new URL("../../action/", import.meta.url).pathname;
const action = parse(readFileSync(join(actionDir, "action.yml"), "utf8"));
const script = readFileSync(join(actionDir, "run.mjs"), "utf8");

describe("action/action.yml", () => {
  const steps = JSON.stringify(action.runs.steps);

  it("uses every input it declares, and declares every input it uses", () => {
    const used = new Set([...steps.matchAll(/inputs\.([a-z-]+)/g)].map((match) => match[1]));
    expect(used).toEqual(new Set(Object.keys(action.inputs)));
    // The script reads what the step passes it.
    const passed = new Set(Object.keys(action.runs.steps[1].env));
    const read = new Set([...script.matchAll(/input\("([A-Z_]+)"\)/g)].map((match) => `INPUT_${match[1]}`));
    expect(read).toEqual(passed);
  });

  it("installs the client package of this repository's version", () => {
    const manifest = JSON.parse(
      readFileSync(new URL("../../packages/cli/package.json", import.meta.url), "utf8"),
    );
    expect(action.inputs["cli-package"].default).toBe(`${manifest.name}@${manifest.version}`);
  });
});

describe("the Action's step", () => {
  let cli: PackedCli;
  let s: Scenario;
  let workspace: string;
  let sha: string;

  beforeAll(async () => {
    cli = await installPackedCli();
  }, 120_000);
  afterAll(() => cli.remove());
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

  /** Runs action/run.mjs as the runner would on a pull_request workflow of PR #7, with the given inputs. */
  async function step(inputs: Record<string, string>) {
    const event = join(workspace, "event.json");
    writeFileSync(
      event,
      JSON.stringify({ pull_request: { number: 7, head: { sha }, base: { ref: "main" } } }),
    );
    const env = {
      PATH: `${dirname(cli.bin)}:${process.env.PATH ?? ""}`,
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
      INPUT_URL: s.server.url,
      INPUT_TOKEN: s.token,
      ...Object.fromEntries(Object.entries(inputs).map(([name, value]) => [`INPUT_${name}`, value])),
    };
    try {
      const { stdout } = await run(process.execPath, [join(actionDir, "run.mjs")], { cwd: workspace, env });
      return { code: 0, stdout };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout + failed.stderr };
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
      JUNIT_PATHS: "reports/unit/*.xml\nreports/e2e/*.xml\n",
      VARIANT: "linux",
      IMPACTED_TARGETS: "//app:server\n//lib:core\n",
    });
    expect(result).toEqual({
      code: 0,
      stdout:
        "switchyard upload --junit-paths reports/unit/*.xml --junit-paths reports/e2e/*.xml --variant linux\n" +
        "uploaded 3 test results from 2 reports: 1 failing test, 0 of them quarantined\n" +
        "switchyard set-impacted-targets --target //app:server --target //lib:core\n" +
        `#7 at ${sha.slice(0, 12)} impacts 2 targets (acme/widgets main)\n`,
    });
    const uploads = await s.store.db
      .selectFrom("test_uploads")
      .select(["branch", "pr_number", "variant"])
      .execute();
    expect(uploads).toEqual([{ branch: "feature", pr_number: 7, variant: "linux" }]);
  });

  it("marks every target impacted with ALL, or reads them from a file", async () => {
    expect((await step({ IMPACTED_TARGETS: "ALL" })).stdout).toContain(
      `#7 at ${sha.slice(0, 12)} impacts every target (acme/widgets main)\n`,
    );
    writeFileSync(join(workspace, "targets.txt"), "//a\n//b\n//c\n");
    expect((await step({ IMPACTED_TARGETS_FILE: "targets.txt" })).stdout).toContain("impacts 3 targets");
  });

  it("fails the step when the service refuses, and says why", async () => {
    const result = await step({
      TOKEN: "sy_0000000000000000_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
      IMPACTED_TARGETS: "ALL",
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      "setting impacted targets was refused: the x-api-token is unknown or revoked",
    );
  });
});
