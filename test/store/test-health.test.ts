import { beforeEach, describe, expect, it } from "vitest";
import {
  type FailureCountKey,
  healthyWithoutFailures,
  type PagePosition,
  parseCodeowners,
  type TestCase,
} from "../../src/test-health/index.ts";
import { ingestUpload, type UploadInput } from "../../src/test-health-use-cases/ingestion.ts";
import { JunitParseError } from "../../src/test-reports/parsed-report.ts";
import { maintainTestHealth } from "../../src/test-health-use-cases/maintenance.ts";
import type { RepositoryFacts } from "../../src/test-health-use-cases/checkout-facts.ts";
import type { Repository } from "../../src/store/repositories.ts";
import { findTestCase, saveTestCaseHealth } from "../../src/store/test-cases.ts";
import { testCaseKeyCache } from "../../src/store/test-case-key-cache.ts";
import { linkTicket } from "../../src/store/test-tickets.ts";
import { failingTestsPage } from "../../src/store/test-listings.ts";
import { type TestStore, testDialects } from "../support/database.ts";
import {
  type CaseSpec,
  junitReport,
  TEST_HEALTH_START,
  uploadInput,
  useTestHealthStore,
  widgetsTestId,
} from "../support/test-health.ts";

const HOUR = 3600 * 1000;
const DAY = 24 * HOUR;
const silentLog = { info: () => undefined, warn: () => undefined, error: () => undefined } as never;

describe.each(testDialects)("test health storage on %s", (dialect) => {
  let store: TestStore;
  let repository: Repository;
  let now: number;
  const facts: RepositoryFacts = {
    defaultBranch: async () => "main",
    codeowners: async () => parseCodeowners(""),
  };

  const fixture = useTestHealthStore(dialect);
  beforeEach(() => {
    ({ store, repository } = fixture);
    now = TEST_HEALTH_START;
  });

  const ingest = (cases: CaseSpec[] | string[], overrides: Partial<UploadInput> = {}) =>
    ingestUpload(store, uploadInput(repository, now, cases, overrides));
  const testNamed = async (name: string): Promise<TestCase> =>
    (await findTestCase(store.db, repository.id, widgetsTestId(name)))!;
  const count = async (table: "test_results" | "test_cases" | "test_uploads" | "test_failures") =>
    Number(
      (
        await store.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it("stores one result per attempt and one failure per failed attempt, and counts the upload", async () => {
    const surefire = `<testsuite name="suite">
      <testcase name="retried" classname="pkg.Widget"><rerunFailure message="a"/><rerunFailure message="b"/></testcase>
      <testcase name="flaky" classname="pkg.Widget"><flakyFailure message="c"/></testcase>
      <testcase name="skipped" classname="pkg.Widget"><skipped/></testcase>
    </testsuite>`;
    const outcome = await ingest([surefire]);
    expect(outcome).toMatchObject({ testResults: 3, failures: 1 });
    expect(await count("test_results")).toBe(5);
    expect(await count("test_failures")).toBe(3);
    const upload = await store.db.selectFrom("test_uploads").selectAll().executeTakeFirstOrThrow();
    expect(upload).toMatchObject({ test_results: 3, failures: 1, started_at: now, received_at: now });
  });

  it("stores nothing when a later document of the upload is malformed", async () => {
    const good = junitReport(Array.from({ length: 5000 }, (_, i) => ({ name: `t${i}` })));
    await expect(ingest([good, "<testsuite><testcase name='x'></testsuite>"])).rejects.toBeInstanceOf(
      JunitParseError,
    );
    for (const table of ["test_results", "test_cases", "test_uploads", "test_failures"] as const) {
      expect(await count(table)).toBe(0);
    }
  });

  it("takes back the keys of a failed upload, so that later uploads never attach results to the wrong test", async () => {
    await ingest([{ name: "a" }]);
    const malformed = "<testsuite><testcase name='x'>";
    await expect(ingest([junitReport([{ name: "b" }, { name: "c" }]), malformed])).rejects.toThrow(
      JunitParseError,
    );
    await ingest([{ name: "d", outcome: "failed" }]);
    await ingest([{ name: "b" }]);
    const [b, d] = [await testNamed("b"), await testNamed("d")];
    expect(b.key).not.toBe(d.key);
    const resultsOf = async (key: number) =>
      (await store.db.selectFrom("test_results").select("outcome").where("test_key", "=", key).execute()).map(
        (row) => row.outcome,
      );
    expect(await resultsOf(b.key)).toEqual(["passed"]);
    expect(await resultsOf(d.key)).toEqual(["failed"]);
  });

  it("finds the tests it already stores when an upload that began with new ones goes on with known ones", async () => {
    const known = Array.from({ length: 3000 }, (_, i) => ({ name: `known${i}`, outcome: "failed" as const }));
    await ingest(known);
    // As after a restart: nothing remembers the known tests' keys, and the first batch holds only new tests.
    testCaseKeyCache(store.db).forget();
    const fresh = Array.from({ length: 3000 }, (_, i) => ({ name: `new${i}` }));
    const outcome = await ingest([...fresh, ...known.map(({ name }) => ({ name }))], {
      commitSha: "b".repeat(40),
    });
    expect(outcome.testResults).toBe(6000);
    expect(await count("test_cases")).toBe(6000);
    const results = async (name: string) =>
      (
        await store.db
          .selectFrom("test_results")
          .select("outcome")
          .where("test_key", "=", (await testNamed(name)).key)
          .orderBy("occurred_at")
          .execute()
      ).map((row) => row.outcome);
    for (const name of ["known0", "known999", "known1000", "known2999"]) {
      expect(await results(name)).toEqual(["failed", "passed"]);
      expect((await testNamed(name)).status).toBe("flaky");
    }
    expect(await results("new2999")).toEqual(["passed"]);
    expect((await testNamed("new2999")).status).toBe("healthy");
  });

  it("serialises concurrent uploads of one repository", async () => {
    const cases = Array.from({ length: 3000 }, (_, i) => ({ name: `t${i}`, outcome: "failed" as const }));
    const outcomes = await Promise.all([ingest(cases), ingest(cases), ingest(cases)]);
    expect(outcomes.map((o) => o.failures)).toEqual([3000, 3000, 3000]);
    expect(await count("test_cases")).toBe(3000);
    expect(await count("test_results")).toBe(9000);
    expect((await testNamed("t0")).statusReason).toBe(
      "failed the last 3 runs on main, latest on commit aaaaaaa",
    );
  });

  it("reclassifies only the tests an upload touched; the hourly pass ages the others", async () => {
    await ingest([{ name: "a", outcome: "failed" }, { name: "b", outcome: "failed" }, { name: "c" }]);
    now += HOUR;
    await ingest([{ name: "a" }, { name: "b" }, { name: "c" }]);
    expect((await testNamed("a")).status).toBe("flaky");
    expect((await testNamed("b")).status).toBe("flaky");
    const c = await testNamed("c");
    expect(c).toMatchObject({
      status: "healthy",
      statusReason: healthyWithoutFailures.reason,
      settled: true,
    });

    // A settled test that passes again is neither read nor written: a marker left in its row survives.
    await saveTestCaseHealth(store.db, dialect, [{ ...c, statusReason: "marker" }]);
    now += HOUR;
    await ingest([{ name: "c" }, { name: "c", outcome: "skipped" }], { commitSha: "b".repeat(40) });
    expect((await testNamed("c")).statusReason).toBe("marker");

    // Eight days on, the evidence of a and b has left the window; only the touched test is reclassified.
    now += 8 * DAY;
    await ingest([{ name: "a" }], { commitSha: "c".repeat(40) });
    expect(await testNamed("a")).toMatchObject({ status: "healthy", settled: true, statusChangedAt: now });
    expect(await testNamed("b")).toMatchObject({ status: "flaky", quarantined: true });

    const report = await maintainTestHealth({
      store,
      facts,
      retentionDays: 90,
      clock: () => now,
      log: silentLog,
    });
    expect(report.reclassifiedTests).toBe(1);
    expect(await testNamed("b")).toMatchObject({
      status: "healthy",
      statusReason: healthyWithoutFailures.reason,
      quarantined: false,
      settled: true,
      statusChangedAt: now,
    });
    // An upload in which it fails does reclassify a settled test.
    await ingest([{ name: "c", outcome: "failed" }, { name: "c" }], { commitSha: "d".repeat(40) });
    expect((await testNamed("c")).status).toBe("flaky");
  });

  it("purges results after the retention plus a listing snapshot's lifetime, and forgets tests left without any", async () => {
    // Received 100 days ago: a test is forgotten only when it was first seen before the cutoff too.
    const today = now;
    now -= 100 * DAY;
    await ingest([{ name: "old", outcome: "failed" }, { name: "kept" }], {
      receipt: { idempotencyKey: "old", requestHash: "h" },
    });
    await ingest([{ name: "chosen" }]);
    now = today;
    await ingest([{ name: "kept" }], { receipt: { idempotencyKey: "new", requestHash: "h" } });
    const chosen = await testNamed("chosen");
    await saveTestCaseHealth(store.db, dialect, [{ ...chosen, quarantineSetting: "never" }]);
    await ingest([{ name: "edge" }], { startedAt: now - 90 * DAY - HOUR });
    for (const name of ["old", "kept"]) {
      await linkTicket(store.db, (await testNamed(name)).key, `https://tickets.example/${name}`, now);
    }

    const report = await maintainTestHealth({
      store,
      facts,
      retentionDays: 90,
      clock: () => now,
      log: silentLog,
    });
    expect(report).toMatchObject({ purgedResults: 3, forgottenTests: 1 });
    expect(await testNamed("old")).toBeUndefined();
    expect(await testNamed("kept")).toBeDefined();
    expect(await testNamed("chosen")).toBeDefined();
    expect(await testNamed("edge")).toBeDefined();
    expect(await count("test_results")).toBe(2);
    expect(await count("test_failures")).toBe(0);
    expect(await count("test_uploads")).toBe(2);
    // Receipts go with their uploads' results.
    const receipts = await store.db.selectFrom("test_upload_receipts").select("idempotency_key").execute();
    expect(receipts).toEqual([{ idempotency_key: "new" }]);
    // A forgotten test's ticket goes with it.
    const tickets = await store.db.selectFrom("test_case_tickets").select("url").execute();
    expect(tickets).toEqual([{ url: "https://tickets.example/kept" }]);
  });

  it("pages failing tests by count, then name in byte order, then key, in both directions", async () => {
    const names = ["b", "a", "B", "é", "a"];
    const cases = names.map((name, i) => ({ name, classname: `c${i}`, outcome: "failed" as const }));
    await ingest(cases);
    await ingest([cases[4]!, cases[3]!]);
    const range = { repositoryId: repository.id, from: now - DAY, to: now + 1, snapshot: now };
    const read = (position: PagePosition<FailureCountKey>, limit = 10) =>
      failingTestsPage(store.db, dialect, range, position, limit);
    const all = (await read({ kind: "first" })).rows;
    expect(all.map((row) => [row.failures, row.testCase.name, row.testCase.classname])).toEqual([
      [2, "a", "c4"],
      [2, "é", "c3"],
      [1, "B", "c2"],
      [1, "a", "c1"],
      [1, "b", "c0"],
    ]);
    const key = (index: number): FailureCountKey => {
      const row = all[index]!;
      return [row.failures, row.testCase.name, row.testCase.key];
    };
    const after = await read({ kind: "after", key: key(1) }, 2);
    expect(after.rows.map((row) => row.testCase.classname)).toEqual(["c2", "c1"]);
    expect(after.more).toBe(true);
    const before = await read({ kind: "before", key: key(3) }, 2);
    expect(before.rows.map((row) => row.testCase.classname)).toEqual(["c3", "c2"]);
    expect(before.more).toBe(true);
    const last = await read({ kind: "last" }, 2);
    expect(last.rows.map((row) => row.testCase.classname)).toEqual(["c1", "c0"]);
  });
});
