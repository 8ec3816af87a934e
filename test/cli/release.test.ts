// `npm run release` as a maintainer runs it, and its client tarball as a user installs it: `npm install --global`
// into an empty prefix, offline (the tarball holds everything it needs), then `switchyard upload` against a running
// service with nothing but the installed executable.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestServer, startTestServer, tokenFor } from "../support/api-server.ts";
import { createTestStore, type TestStore } from "../support/database.ts";
import { junitReport, useUnaskedGitHub } from "../support/test-health.ts";

const run = promisify(execFile);
const repository = new URL("../../", import.meta.url).pathname;
const { version } = JSON.parse(readFileSync(join(repository, "packages/cli/package.json"), "utf8"));

describe("npm run release", () => {
  const work = mkdtempSync(join(tmpdir(), "switchyard-release-"));
  const prefix = join(work, "prefix");
  let printed: string;

  beforeAll(async () => {
    ({ stdout: printed } = await run("npm", ["run", "-s", "release", "--", join(work, "release")], {
      cwd: repository,
    }));
  }, 120_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("builds the client's tarball and says which tags to push", () => {
    expect(readdirSync(join(work, "release"))).toEqual([`switchyard-ci-cli-${version}.tgz`]);
    expect(printed).toContain(`git tag v${version}`);
    expect(printed).toContain(`git tag --force v${version.split(".")[0]}`);
  });

  describe("its tarball installed with npm install --global, offline", () => {
    useUnaskedGitHub();
    let store: TestStore;
    let server: TestServer;

    beforeAll(async () => {
      const tarball = join(work, "release", `switchyard-ci-cli-${version}.tgz`);
      await run(
        "npm",
        ["install", "--global", "--prefix", prefix, "--offline", "--no-audit", "--no-fund", tarball],
        {
          // An unreachable registry: the install must not need one.
          env: { ...process.env, npm_config_registry: "http://127.0.0.1:9/" },
        },
      );
      store = await createTestStore("sqlite");
      server = await startTestServer(store);
    }, 120_000);
    afterAll(async () => {
      await server?.close();
      await store?.destroy();
    });

    const switchyard = (args: string[], cwd = work) =>
      run(join(prefix, "bin/switchyard"), args, {
        cwd,
        // Nothing of this machine's: no CI variables, no npm, no repository around it.
        env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: work },
      });

    it("is a switchyard executable of the release's version", async () => {
      expect((await switchyard(["--version"])).stdout).toBe(`${version}\n`);
    });

    it("uploads JUnit reports to a running service", async () => {
      const project = join(work, "project");
      mkdirSync(join(project, "reports"), { recursive: true });
      writeFileSync(join(project, "reports/TEST-a.xml"), junitReport([{ name: "adds" }, { name: "lists" }]));
      const token = await tokenFor(store, "acme");
      const { stdout } = await switchyard(
        [
          ...["upload", "--junit-paths", "reports/*.xml", "--url", server.url, "--token", token],
          ...["--repo", "acme/widgets", "--commit-sha", "a".repeat(40), "--branch", "main"],
        ],
        project,
      );
      expect(stdout).toBe("uploaded 2 test results from 1 report: no failures\n");
    });
  });
});
