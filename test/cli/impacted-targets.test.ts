// switchyard set-impacted-targets against a live queue: from flags, from a targets file, and on GitHub Actions from
// the pull_request event, whose head commit is the PR's and not GITHUB_SHA's merge commit.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ciVariables } from "../../src/cli/ci-environment.ts";
import { runCli } from "../../src/cli/program.ts";
import { loadConfig } from "../../src/config.ts";
import { repoRef as repo, type Scenario, startScenario } from "../support/queue-scenario.ts";

describe("switchyard set-impacted-targets", () => {
  let s: Scenario;
  let dir: string;
  let sha: string;
  beforeEach(async () => {
    for (const name of ciVariables) vi.stubEnv(name, "");
    s = await startScenario();
    await s.api("createQueue", { repo, targetBranch: "main", mode: "parallel" });
    s.repo.openPullRequest({ number: 7, title: "Change 7", author: "alice", files: { "src/7.ts": "7\n" } });
    sha = s.repo.pullRequest(7).headSha;
    dir = mkdtempSync(join(tmpdir(), "switchyard-targets-"));
  });
  afterEach(async () => {
    vi.unstubAllEnvs();
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function cli(...argv: string[]) {
    let out = "";
    let err = "";
    const code = await runCli(argv, {
      out: (text) => (out += text),
      err: (text) => (err += text),
      config: () => loadConfig({ DATABASE_URL: "file::memory:" }),
      now: Date.now,
    });
    return { code, out, err };
  }
  const service = () => ["--url", s.server.url, "--token", s.token];
  const readiness = async () =>
    (await s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number: 7 } })).body.readiness;

  it("sets the targets the flags name, and the PR is then ready on that count", async () => {
    const flags = ["--repo", "acme/widgets", "--target-branch", "main", "--pr-number", "7", "--pr-sha", sha];
    const result = await cli(
      "set-impacted-targets",
      ...service(),
      ...flags,
      "--target",
      "//app",
      "--target",
      "//lib",
    );
    expect(result).toEqual({
      code: 0,
      out: `#7 at ${sha.slice(0, 12)} impacts 2 targets (acme/widgets main)\n`,
      err: "",
    });
    expect((await readiness()).hasImpactedTargets).toBe(true);
  });

  it("reads the PR, its head and its target branch from the pull_request event, and targets from a file", async () => {
    const event = join(dir, "event.json");
    writeFileSync(
      event,
      JSON.stringify({ pull_request: { number: 7, head: { sha }, base: { ref: "main" } } }),
    );
    const targets = join(dir, "targets.txt");
    writeFileSync(targets, "# from bazel-diff\n//app:server\n\n//lib:core\n//app:server\n");
    vi.stubEnv("SWITCHYARD_URL", s.server.url);
    vi.stubEnv("SWITCHYARD_TOKEN", s.token);
    vi.stubEnv("GITHUB_REPOSITORY", "acme/widgets");
    vi.stubEnv("GITHUB_EVENT_PATH", event);
    // The merge commit GitHub made for the run: not what the targets are for.
    vi.stubEnv("GITHUB_SHA", "f".repeat(40));
    const result = await cli("set-impacted-targets", "--targets-file", targets);
    expect(result.out).toBe(`#7 at ${sha.slice(0, 12)} impacts 2 targets (acme/widgets main)\n`);
    const all = await cli("set-impacted-targets", "--all");
    expect(all.out).toBe(`#7 at ${sha.slice(0, 12)} impacts every target (acme/widgets main)\n`);
  });

  it("says what is missing, and refuses anything but exactly one way of naming targets", async () => {
    expect(await cli("set-impacted-targets", "--all")).toEqual({
      code: 1,
      out: "",
      err:
        "error: cannot set impacted targets without the service URL (--url or SWITCHYARD_URL), an API token " +
        "(--token or SWITCHYARD_TOKEN), the repository (--repo or GITHUB_REPOSITORY), the target branch " +
        "(--target-branch, the pull_request event or GITHUB_BASE_REF), the pull request (--pr-number, the " +
        "pull_request event or GITHUB_REF), the PR's head commit (--pr-sha or the pull_request event)\n",
    });
    for (const targets of [[], ["--all", "--target", "//app"]]) {
      expect((await cli("set-impacted-targets", ...service(), ...targets)).err).toBe(
        "error: give the impacted targets with exactly one of --target, --targets-file and --all\n",
      );
    }
  });

  it("passes on the service's refusal: a PR of a branch without a queue", async () => {
    const flags = [
      "--repo",
      "acme/widgets",
      "--target-branch",
      "develop",
      "--pr-number",
      "7",
      "--pr-sha",
      sha,
    ];
    const result = await cli("set-impacted-targets", ...service(), ...flags, "--all");
    expect(result.code).toBe(1);
    expect(result.err).toBe(
      "error: setting impacted targets was refused: no merge queue for branch develop in github.com/acme/widgets " +
        "(queue_not_found)\n",
    );
  });
});
