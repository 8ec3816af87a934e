import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { runCli } from "../../src/cli/program.ts";
import { DEFAULT_REPORT_GLOBS, findReports } from "../../src/cli/upload-client.ts";
import { ciVariables } from "../../src/cli/ci-environment.ts";
import { loadConfig } from "../../src/config.ts";
import { type TestServer, startTestServer, tokenFor } from "../support/api-server.ts";
import { createTestStore, type TestStore } from "../support/database.ts";
import {
  type CaseSpec,
  junitReport,
  useUnaskedGitHub,
  widgetsTarget,
  widgetsTestId,
  widgets as repo,
} from "../support/test-health.ts";

const sha = "0123456789abcdef0123456789abcdef01234567";

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("switchyard upload and switchyard test", () => {
  let store: TestStore;
  let server: TestServer;
  let token: string;
  let dir: string;

  useUnaskedGitHub();
  beforeEach(async () => {
    // The test process may itself run in CI: its variables must not leak into the commands under test.
    for (const name of ciVariables) vi.stubEnv(name, "");
    store = await createTestStore("sqlite");
    server = await startTestServer(store);
    token = await tokenFor(store, "acme");
    dir = mkdtempSync(join(tmpdir(), "switchyard-upload-"));
  });
  afterEach(async () => {
    vi.unstubAllEnvs();
    await server.close();
    await store.destroy();
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

  const writeReport = (name: string, cases: CaseSpec[]) => {
    const path = join(dir, name);
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, junitReport(cases));
    return path;
  };
  const service = () => ["--url", server.url, "--token", token];
  const metadata = ["--repo", "acme/widgets", "--commit-sha", sha, "--branch", "main"];
  const uploads = () => store.db.selectFrom("test_uploads").selectAll().execute();

  describe("upload", () => {
    it("uploads the reports the globs match, with the metadata of the flags", async () => {
      writeReport("reports/a.xml", [{ name: "adds" }, { name: "removes", outcome: "failed" }]);
      writeReport("reports/nested/b.xml", [{ name: "lists", outcome: "skipped" }]);
      const { code, out, err } = await cli(
        "upload",
        "--junit-paths",
        join(dir, "reports/**/*.xml"),
        ...service(),
        ...metadata,
        "--pr-number",
        "7",
        "--variant",
        "linux",
      );
      expect({ code, err }).toEqual({ code: 0, err: "" });
      expect(out).toBe("uploaded 3 test results from 2 reports: 1 failing test, 0 of them quarantined\n");
      expect(await uploads()).toEqual([
        expect.objectContaining({
          commit_sha: sha,
          branch: "main",
          pr_number: 7,
          variant: "linux",
          test_results: 3,
        }),
      ]);
    });

    it("takes the metadata and the service from the CI environment", async () => {
      writeReport("junit.xml", [{ name: "adds" }]);
      for (const [name, value] of Object.entries({
        SWITCHYARD_URL: server.url,
        SWITCHYARD_TOKEN: token,
        GITHUB_SHA: sha,
        GITHUB_REF: "refs/pull/42/merge",
        GITHUB_REF_NAME: "42/merge",
        GITHUB_HEAD_REF: "feature/cart",
        GITHUB_JOB: "unit",
        GITHUB_SERVER_URL: "https://github.com",
        GITHUB_REPOSITORY: "acme/widgets",
        GITHUB_RUN_ID: "991",
      })) {
        vi.stubEnv(name, value);
      }
      const { code } = await cli("upload", "--junit-paths", join(dir, "*.xml"));
      expect(code).toBe(0);
      expect(await uploads()).toEqual([
        expect.objectContaining({
          commit_sha: sha,
          branch: "feature/cart",
          pr_number: 42,
          job_name: "unit",
          run_url: "https://github.com/acme/widgets/actions/runs/991",
        }),
      ]);
    });

    it("stores absolute file paths below the checkout relative to it, wherever CI checked it out", async () => {
      const filePaths = async () =>
        (await store.db.selectFrom("test_cases").select("file_path").orderBy("file_path").execute()).map(
          (row) => row.file_path,
        );
      // As PHPUnit writes them.
      writeReport("phpunit.xml", [
        { name: "adds", file: join(dir, "tests/CartTest.php") },
        { name: "elsewhere", file: "/opt/vendor/lib/Test.php" },
      ]);
      const flag = await cli(
        "upload",
        "--junit-paths",
        join(dir, "*.xml"),
        ...service(),
        ...metadata,
        "--repo-root",
        dir,
      );
      expect(flag.code).toBe(0);
      expect(await filePaths()).toEqual(["/opt/vendor/lib/Test.php", "tests/CartTest.php"]);

      // The same test from another checkout directory, named by GitHub Actions, is the same test.
      const elsewhere = join(dir, "runner/work/widgets");
      mkdirSync(elsewhere, { recursive: true });
      writeFileSync(
        join(elsewhere, "phpunit.xml"),
        junitReport([{ name: "adds", file: join(elsewhere, "tests/CartTest.php") }]),
      );
      vi.stubEnv("GITHUB_WORKSPACE", elsewhere);
      const env = await cli("upload", "--junit-paths", join(elsewhere, "*.xml"), ...service(), ...metadata);
      expect(env.code).toBe(0);
      expect(await filePaths()).toEqual(["/opt/vendor/lib/Test.php", "tests/CartTest.php"]);
    });

    it("names every missing piece of metadata and how to give it", async () => {
      writeReport("junit.xml", [{ name: "adds" }]);
      const { code, err } = await cli(
        "upload",
        "--junit-paths",
        join(dir, "*.xml"),
        "--repo",
        "acme/widgets",
      );
      expect(code).toBe(1);
      expect(err).toBe(
        "error: cannot upload without the service URL (--url or SWITCHYARD_URL), an API token (--token or SWITCHYARD_TOKEN), " +
          "the commit (--commit-sha or GITHUB_SHA), the branch (--branch, GITHUB_HEAD_REF or GITHUB_REF_NAME)\n",
      );
    });

    it("fails when no file matches, and when the service refuses the upload", async () => {
      const none = await cli("upload", "--junit-paths", join(dir, "*.xml"), ...service(), ...metadata);
      expect(none).toMatchObject({ code: 1, err: expect.stringContaining("no file matches --junit-paths") });
      writeReport("junit.xml", [{ name: "adds" }]);
      const refused = await cli(
        "upload",
        "--junit-paths",
        join(dir, "*.xml"),
        "--url",
        server.url,
        "--token",
        "sy_bad",
        ...metadata,
      );
      expect(refused).toMatchObject({ code: 1, err: expect.stringContaining("(unauthenticated)") });
      const broken = join(dir, "broken.xml");
      writeFileSync(broken, "<testsuite><testcase name='x'>");
      const invalid = await cli("upload", "--junit-paths", broken, ...service(), ...metadata);
      expect(invalid).toMatchObject({ code: 1, err: expect.stringContaining("(invalid_junit)") });
    });

    it("sends the checkout's CODEOWNERS and default branch, which give the tests' owners and stable branch", async () => {
      mkdirSync(join(dir, ".git"));
      mkdirSync(join(dir, ".github"));
      writeFileSync(join(dir, ".github/CODEOWNERS"), "src/ @acme/core\n");
      const event = join(dir, "event.json");
      writeFileSync(event, JSON.stringify({ repository: { default_branch: "trunk" } }));
      vi.stubEnv("GITHUB_EVENT_PATH", event);
      writeReport("junit.xml", [{ name: "dead", file: "src/a.ts", outcome: "failed" }]);
      for (const commit of ["1", "2", "3"]) {
        const uploaded = await cli(
          "upload",
          "--junit-paths",
          join(dir, "*.xml"),
          ...service(),
          "--repo",
          "acme/widgets",
          "--commit-sha",
          commit.repeat(40),
          "--branch",
          "trunk",
          "--repo-root",
          dir,
        );
        expect(uploaded.code).toBe(0);
      }
      const response = await server.post(
        "flaky-tests/get-test-details",
        { ...widgetsTarget, test_id: widgetsTestId("dead", { filePath: "src/a.ts" }) },
        token,
      );
      const { test } = (await response.json()) as any;
      expect(test.codeowners).toEqual(["@acme/core"]);
      expect(test.status).toMatchObject({
        value: "broken",
        reason: "failed the last 3 runs on trunk, latest on commit 3333333",
      });
    });

    it("sends an upload whose answer was lost again, with the same idempotency key, and it is stored once", async () => {
      const keys: string[] = [];
      // A proxy that passes the first request on, then cuts the connection instead of answering.
      const proxy = createHttpServer(async (request, response) => {
        const chunks: Buffer[] = [];
        for await (const chunk of request) chunks.push(chunk as Buffer);
        keys.push(String(request.headers["idempotency-key"]));
        const answer = await fetch(`${server.url}${request.url}`, {
          method: "POST",
          headers: request.headers as Record<string, string>,
          body: Buffer.concat(chunks),
        });
        const text = await answer.text();
        if (keys.length === 1) response.destroy();
        else response.writeHead(answer.status, { "content-type": "application/json" }).end(text);
      });
      await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
      try {
        writeReport("junit.xml", [{ name: "adds" }, { name: "removes", outcome: "failed" }]);
        const proxied = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
        const { code, out } = await cli(
          "upload",
          "--junit-paths",
          join(dir, "*.xml"),
          "--url",
          proxied,
          "--token",
          token,
          ...metadata,
        );
        expect(code).toBe(0);
        expect(out).toBe("uploaded 2 test results from 1 report: 1 failing test, 0 of them quarantined\n");
        expect(keys).toHaveLength(2);
        expect(keys[1]).toBe(keys[0]);
        expect(keys[0]).toMatch(/^switchyard-upload-[0-9a-f]{64}$/);
        expect(await uploads()).toHaveLength(1);
      } finally {
        proxy.closeAllConnections();
        await new Promise((resolve) => proxy.close(resolve));
      }
    });

    it("splits reports over several requests to stay under the service's 20 MiB limit", async () => {
      const padding = "x".repeat(7 * 1024 * 1024);
      for (const name of ["a", "b", "c"]) {
        writeFileSync(
          join(dir, `${name}.xml`),
          `<testsuite name="${name}"><testcase name="t" classname="c"><system-out>${padding}</system-out></testcase></testsuite>`,
        );
      }
      const { code, out } = await cli(
        "upload",
        "--junit-paths",
        join(dir, "*.xml"),
        ...service(),
        ...metadata,
      );
      expect(code).toBe(0);
      expect(out).toContain("uploaded 3 test results from 3 reports");
      expect(await uploads()).toHaveLength(2);
    });
  });

  describe("test, wrapping a real child process", () => {
    const pendingReport = (cases: CaseSpec[]) => writeReport("pending.xml", cases);
    /** A command that writes the pending report (unless told not to) and exits with `exitCode`. */
    const command = (exitCode: number, writes = true) => [
      process.execPath,
      "-e",
      `${writes ? `require("fs").copyFileSync(${JSON.stringify(join(dir, "pending.xml"))}, ${JSON.stringify(join(dir, "out/junit.xml"))});` : ""} process.exit(${exitCode})`,
    ];
    const wrap = (args: string[], exitCode: number, writes = true) => {
      mkdirSync(join(dir, "out"), { recursive: true });
      return cli(
        "test",
        "--junit-paths",
        join(dir, "out/*.xml"),
        ...args,
        "--",
        ...command(exitCode, writes),
      );
    };
    const quarantine = (name: string) =>
      server.post(
        "flaky-tests/set-quarantine-setting",
        {
          repo,
          org_url_slug: "acme",
          test_id: widgetsTestId(name),
          setting: "always",
        },
        token,
      );

    it("keeps a failing command's exit code when a failure is not quarantined, and names it", async () => {
      pendingReport([{ name: "adds" }, { name: "breaks", outcome: "failed" }]);
      const { code, err } = await wrap([...service(), ...metadata], 1);
      expect(code).toBe(1);
      expect(err).toContain("uploaded 2 test results from 1 report: 1 failing test, 0 of them quarantined");
      expect(err).toContain(`failed, not quarantined: pkg.Widget breaks (${widgetsTestId("breaks")})`);
      expect(await uploads()).toHaveLength(1);
    });

    it("exits 0 when every failure is a quarantined test", async () => {
      pendingReport([{ name: "flaky", outcome: "failed" }]);
      expect((await wrap([...service(), ...metadata], 1)).code).toBe(1);
      expect((await quarantine("flaky")).status).toBe(200);
      pendingReport([{ name: "flaky", outcome: "failed" }, { name: "fine" }]);
      const { code, err } = await wrap([...service(), ...metadata], 1);
      expect(code).toBe(0);
      expect(err).toContain("every failing test is quarantined: exiting 0 instead of 1");
    });

    it("keeps the command's exit code when the service is unreachable", async () => {
      pendingReport([{ name: "flaky", outcome: "failed" }]);
      const unreachable = ["--url", `http://127.0.0.1:${await closedPort()}`, "--token", token, ...metadata];
      const failed = await wrap(unreachable, 1);
      expect(failed.code).toBe(1);
      expect(failed.err).toMatch(
        /could not reach the Switchyard service .*ECONNREFUSED.*; keeping the command's exit code 1/,
      );
      expect((await wrap(unreachable, 0)).code).toBe(0);
      expect((await wrap(unreachable, 5)).code).toBe(5);
    });

    it("keeps the exit code of a command that failed without writing a report, or left only stale ones", async () => {
      const { code, err } = await wrap([...service(), ...metadata], 3, false);
      expect(code).toBe(3);
      expect(err).toContain("the command wrote no JUnit report");
      pendingReport([{ name: "old", outcome: "failed" }]);
      const stale = join(dir, "out/junit.xml");
      writeFileSync(stale, junitReport([{ name: "old", outcome: "failed" }]));
      utimesSync(stale, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
      expect((await wrap([...service(), ...metadata], 2, false)).code).toBe(2);
      expect(await uploads()).toHaveLength(0);
    });

    it("passes a passing command through after uploading, and keeps its code when metadata is missing", async () => {
      pendingReport([{ name: "adds" }]);
      expect((await wrap([...service(), ...metadata], 0)).code).toBe(0);
      expect(await uploads()).toHaveLength(1);
      const { code, err } = await wrap(service(), 4);
      expect(code).toBe(4);
      expect(err).toContain("cannot upload without the repository");
    });

    it("answers 127 for a command that cannot run and 128+n for one a signal ended", async () => {
      const missing = await cli("test", ...service(), ...metadata, "--", join(dir, "no-such-command"));
      expect(missing.code).toBe(127);
      expect(missing.err).toContain("cannot run");
      const killed = await cli(
        "test",
        ...service(),
        ...metadata,
        "--",
        process.execPath,
        "-e",
        'process.kill(process.pid, "SIGTERM")',
      );
      expect(killed.code).toBe(143);
    });
  });

  it("finds reports by the default globs, only JUnit ones, and only fresh ones when asked", async () => {
    writeReport("target/surefire-reports/TEST-pkg.Widget.xml", [{ name: "a" }]);
    writeReport("build/test-results/test/TEST-b.xml", [{ name: "b" }]);
    writeReport("reports/junit.xml", [{ name: "c" }]);
    writeFileSync(join(dir, "reports/junit-config.xml"), '<?xml version="1.0"?>\n<configuration/>');
    writeReport("node_modules/dep/junit.xml", [{ name: "d" }]);
    const found = await findReports({ globs: DEFAULT_REPORT_GLOBS, cwd: dir, junitOnly: true });
    expect(found.map((path) => path.slice(dir.length + 1))).toEqual([
      "build/test-results/test/TEST-b.xml",
      "reports/junit.xml",
      "target/surefire-reports/TEST-pkg.Widget.xml",
    ]);
    utimesSync(found[0]!, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    expect(
      await findReports({
        globs: DEFAULT_REPORT_GLOBS,
        cwd: dir,
        junitOnly: true,
        modifiedSince: Date.now() - 5000,
      }),
    ).toHaveLength(2);
  });
});
