// `switchyard upload` of a single report over the service's 20 MiB body limit: sent in parts the service accepts
// each, and stored with the same tests, results, failures and classifications as the service stores the whole
// report when it reads it in one go; sending it again stores nothing more.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ciVariables } from "../../src/cli/ci-environment.ts";
import { runCli } from "../../src/cli/program.ts";
import { loadConfig } from "../../src/config.ts";
import { ingestUpload } from "../../src/test-health-use-cases/ingestion.ts";
import { recordRepository } from "../../src/store/repositories.ts";
import { type TestServer, startTestServer, tokenFor } from "../support/api-server.ts";
import { createTestStore, type TestStore } from "../support/database.ts";
import { TEST_HEALTH_START, uploadInput, useUnaskedGitHub, widgets } from "../support/test-health.ts";

const sha = "0123456789abcdef0123456789abcdef01234567";
const MiB = 1024 * 1024;

/** About 24 MiB: one suite of 14 MiB alone, nested suites, failures with colour codes, reruns, suite output. */
function hugeReport(): string {
  const output = `<system-out>${"a line of captured output\n".repeat(85)}</system-out>`;
  const testcase = (name: string, i: number) => {
    if (i % 97 === 0) {
      return `<testcase name="${name}" classname="pkg.Widget" time="0.2"><failure message="\u001b[31mexpected ${i % 5}\u001b[0m">at widget.test.ts:${i}</failure>${output}</testcase>`;
    }
    return `<testcase name="${name}" classname="pkg.Widget" time="0.01">${output}</testcase>`;
  };
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<testsuites name="all">'];
  lines.push(
    '<testsuite name="widgets" file="src/widgets.test.ts"><properties><property name="seed" value="1"/></properties>',
  );
  for (let i = 0; i < 6000; i++) {
    lines.push(testcase(`case ${i}`, i));
    // A rerun written as a second element of the same test, which passed.
    if (i % 500 === 1) lines.push(`<testcase name="case ${i}" classname="pkg.Widget" time="0.01"/>`);
  }
  lines.push("</testsuite>", '<testsuite name="outer" file="src/outer.test.ts">');
  for (const inner of ["inner a", "inner b"]) {
    lines.push(`<testsuite name="${inner}">`);
    for (let i = 0; i < 2000; i++) lines.push(testcase(`${inner} ${i}`, i + 1));
    lines.push("</testsuite>");
  }
  lines.push("<system-out>suite output</system-out></testsuite></testsuites>");
  return lines.join("\n");
}

describe("switchyard upload of a report over 20 MiB", () => {
  let store: TestStore;
  let whole: TestStore;
  let server: TestServer;
  let dir: string;

  useUnaskedGitHub();
  beforeEach(async () => {
    for (const name of ciVariables) vi.stubEnv(name, "");
    store = await createTestStore("sqlite");
    whole = await createTestStore("sqlite");
    server = await startTestServer(store, { clock: () => TEST_HEALTH_START });
    dir = mkdtempSync(join(tmpdir(), "switchyard-large-"));
  });
  afterEach(async () => {
    vi.unstubAllEnvs();
    await server.close();
    await store.destroy();
    await whole.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Every test with its classification and its results in upload order, failures with their summaries. */
  const stored = (db: TestStore["db"]) =>
    db
      .selectFrom("test_cases")
      .innerJoin("test_results", "test_results.test_key", "test_cases.key")
      .leftJoin("test_failures", (join) =>
        join
          .onRef("test_failures.test_key", "=", "test_results.test_key")
          .onRef("test_failures.upload_key", "=", "test_results.upload_key")
          .onRef("test_failures.seq", "=", "test_results.seq"),
      )
      .select([
        "test_cases.id",
        "test_cases.name",
        "test_cases.parent",
        "test_cases.file_path",
        "test_cases.status",
        "test_cases.quarantined",
        "test_results.outcome",
        "test_failures.summary",
      ])
      .orderBy("test_cases.id")
      .orderBy("test_results.upload_key")
      .orderBy("test_results.seq")
      .execute();

  it("sends it in parts and stores what one upload of it stores", { timeout: 180_000 }, async () => {
    const report = hugeReport();
    expect(Buffer.byteLength(report)).toBeGreaterThan(22 * MiB);
    const path = join(dir, "TEST-huge.xml");
    writeFileSync(path, report);
    const upload = async () => {
      let out = "";
      let err = "";
      const code = await runCli(
        [
          "upload",
          ...["--junit-paths", path, "--url", server.url, "--token", await tokenFor(store, "acme")],
          ...["--repo", "acme/widgets", "--commit-sha", sha, "--branch", "main", "--repo-root", dir],
        ],
        {
          out: (text) => (out += text),
          err: (text) => (err += text),
          config: () => loadConfig({ DATABASE_URL: "file::memory:" }),
          now: Date.now,
        },
      );
      return { code, out, err };
    };

    const first = await upload();
    const uploads = await store.db.selectFrom("test_uploads").select(["test_results", "failures"]).execute();
    expect(uploads.length).toBeGreaterThan(1);

    // The same report as the service reads it in one go, without the body limit of its HTTP endpoint.
    const repository = await recordRepository(whole.db, widgets, TEST_HEALTH_START);
    const outcome = await ingestUpload(
      whole,
      uploadInput(repository, TEST_HEALTH_START, [report], { commitSha: sha, repoRoot: dir }),
    );
    expect(first).toEqual({
      code: 0,
      out: `uploaded ${outcome.testResults} test results from 1 report: ${outcome.failures} failing tests, 0 of them quarantined\n`,
      err: "",
    });
    expect(uploads.reduce((sum, u) => sum + u.test_results, 0)).toBe(outcome.testResults);
    expect(await stored(store.db)).toEqual(await stored(whole.db));

    // Run again (a retried CI step): each part carries the key it had, and nothing is stored twice.
    expect(await upload()).toEqual(first);
    expect(await store.db.selectFrom("test_uploads").select("key").execute()).toHaveLength(uploads.length);
  });
});
