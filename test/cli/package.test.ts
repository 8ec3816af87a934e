// The installable client as a user gets it, from `npm pack` into an empty directory, then `switchyard upload`
// against a running service.
import { execFile } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type TestServer, startTestServer, tokenFor } from "../support/api-server.ts";
import { createTestStore, type TestStore } from "../support/database.ts";
import { installPackedCli, type PackedCli } from "../support/packed-cli.ts";
import { junitReport, useUnaskedGitHub } from "../support/test-health.ts";

const run = promisify(execFile);
const sha = "0123456789abcdef0123456789abcdef01234567";
/** Only what a CI machine would have: no CI variables of the machine running these tests. */
const cleanEnv = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" };

describe("the @switchyard-ci/cli package", () => {
  let cli: PackedCli;
  let app: string;
  let bin: string;

  beforeAll(async () => {
    cli = await installPackedCli();
    ({ app, bin } = cli);
  }, 120_000);
  afterAll(() => cli.remove());

  it("installs one file with no dependencies, and a switchyard executable", async () => {
    expect(readdirSync(join(app, "node_modules")).filter((name) => !name.startsWith("."))).toEqual([
      "@switchyard-ci",
    ]);
    const installed = join(app, "node_modules/@switchyard-ci/cli");
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"));
    expect(manifest.dependencies).toBeUndefined();
    expect(readdirSync(installed).sort()).toEqual(["README.md", "dist", "package.json"]);
    expect((await run(bin, ["--version"], { env: cleanEnv })).stdout).toBe(`${manifest.version}\n`);
    const help = (await run(bin, ["--help"], { env: cleanEnv })).stdout;
    expect(help).toContain("upload [options]");
    expect(help).toContain("set-impacted-targets [options]");
    // The server's own commands need the database: they are not part of the client.
    expect(help).not.toContain("token");
    expect(help).not.toContain("migrate");
  });

  describe("against a running service", () => {
    let store: TestStore;
    let server: TestServer;
    let token: string;
    let reports: string;

    useUnaskedGitHub();
    beforeEach(async () => {
      store = await createTestStore("sqlite");
      server = await startTestServer(store);
      token = await tokenFor(store, "acme");
      reports = mkdtempSync(join(tmpdir(), "switchyard-package-reports-"));
    });
    afterEach(async () => {
      await server.close();
      await store.destroy();
      rmSync(reports, { recursive: true, force: true });
    });

    const uploadArgs = () => [
      "upload",
      "--junit-paths",
      "reports/*.xml",
      ...["--url", server.url, "--token", token],
      ...["--repo", "acme/widgets", "--commit-sha", sha, "--branch", "main"],
    ];

    it("uploads JUnit reports, and prints no progress when stderr is not a terminal", async () => {
      mkdirSync(join(reports, "reports"));
      writeFileSync(
        join(reports, "reports/TEST-widget.xml"),
        junitReport([{ name: "adds" }, { name: "removes", outcome: "failed" }, { name: "lists" }]),
      );
      const { stdout, stderr } = await run(bin, uploadArgs(), { cwd: reports, env: cleanEnv });
      expect(stdout).toBe("uploaded 3 test results from 1 report: 1 failing test, 0 of them quarantined\n");
      expect(stderr).toBe("");
      const uploads = await store.db.selectFrom("test_uploads").select(["commit_sha", "branch"]).execute();
      expect(uploads).toEqual([{ commit_sha: sha, branch: "main" }]);
    });

    it.skipIf(!existsSync("/usr/bin/script"))(
      "shows reports and bytes sent on a terminal, then clears the line for the summary",
      async () => {
        mkdirSync(join(reports, "reports"));
        const cases = Array.from({ length: 2000 }, (_, i) => ({ name: `case ${i} ${"x".repeat(400)}` }));
        for (const name of ["a", "b"])
          writeFileSync(join(reports, `reports/${name}.xml`), junitReport(cases, name));
        // script(1) runs the command on a pseudo-terminal, as a person's shell would.
        const command = [bin, ...uploadArgs()].map((arg) => `'${arg}'`).join(" ");
        const { stdout } = await run("script", ["-qec", command, "/dev/null"], {
          cwd: reports,
          env: cleanEnv,
        });
        // Each line is drawn over the last: a carriage return and "erase line".
        const eraseLine = "\x1b[2K";
        expect(stdout).toContain(eraseLine);
        const lines = stdout.replaceAll(eraseLine, "").split(/\r\n|\r|\n/);
        expect(lines).toContain("uploading: 0/2 reports sent, 0 B");
        expect(lines).toContainEqual(expect.stringMatching(/^uploading: 2\/2 reports sent, 1\.\d MiB$/));
        expect(lines.at(-2)).toBe("uploaded 4000 test results from 2 reports: no failures");
      },
    );
  });
});
