import { beforeEach, describe, expect, it } from "vitest";
import { testCaseId } from "../../src/test-health/index.ts";
import { DEFAULT_QUEUE_SETTINGS } from "../../src/queue/index.ts";
import { newId } from "../../src/store/ids.ts";
import { insertQueue } from "../../src/store/queues.ts";
import type { Repository } from "../../src/store/repositories.ts";
import type { TestServer } from "../support/api-server.ts";
import { type TestStore, testDialects } from "../support/database.ts";
import {
  type CaseSpec,
  junitReport,
  TEST_HEALTH_START,
  useTestHealthServer,
  widgetsTestId,
} from "../support/test-health.ts";

const repo = { host: "github.com", owner: "acme", name: "widgets" };
const target = { repo, org_url_slug: "acme" };
const HOUR = 3600 * 1000;
const DAY = 24 * HOUR;
const sha = (n: number) => n.toString(16).padStart(40, "a");

describe.each(testDialects)("test health over HTTP on %s", (dialect) => {
  let store: TestStore;
  let server: TestServer;
  let token: string;
  let now: number;
  let repository: Repository;

  const fixture = useTestHealthServer(dialect, () => now);
  beforeEach(() => {
    now = TEST_HEALTH_START;
    ({ store, server, token, repository } = fixture);
  });

  const post = async (path: string, body: unknown, as = token) => {
    const response = await server.post(`flaky-tests/${path}`, body, as);
    return {
      status: response.status,
      type: response.headers.get("content-type"),
      body: (await response.json()) as any,
    };
  };
  const upload = (cases: CaseSpec[], extra: Record<string, unknown> = {}) =>
    post("upload", {
      ...target,
      commit_sha: sha(1),
      branch: "main",
      junit_xml: [junitReport(cases)],
      ...extra,
    });
  const details = (testId: string) => post("get-test-details", { ...target, test_id: testId });
  const unhealthy = (status: string, pageQuery: Record<string, unknown> = {}) =>
    post("list-unhealthy-tests", { ...target, status, page_query: pageQuery });
  const quarantined = (pageQuery: Record<string, unknown> = {}) =>
    post("list-quarantined-tests", { ...target, page_query: pageQuery });
  const failing = (start: number, end: number, pageQuery: Record<string, unknown> = {}) =>
    post("list-failing-tests", {
      ...target,
      start_time: new Date(start).toISOString(),
      end_time: new Date(end).toISOString(),
      page_query: pageQuery,
    });
  const rowCount = async (table: "test_results" | "test_cases" | "test_uploads" | "test_failures") =>
    Number(
      (
        await store.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );

  describe("upload", () => {
    it("stores every test case and answers what failed", async () => {
      const { status, body } = await upload([
        { name: "adds" },
        { name: "removes", outcome: "failed" },
        { name: "later", outcome: "skipped" },
      ]);
      expect(status).toBe(200);
      expect(body).toEqual({
        upload_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        test_results: 3,
        failures: 1,
        quarantined_failures: 0,
        unquarantined_failures: [
          { test_id: widgetsTestId("removes"), name: "removes", classname: "pkg.Widget", file_path: "" },
        ],
        all_failures_quarantined: false,
      });
      expect(await rowCount("test_results")).toBe(3);
      expect(await rowCount("test_failures")).toBe(1);
    });

    it("accepts the PR number as a string, and an empty one as no PR", async () => {
      expect((await upload([{ name: "a" }], { pr_number: "42", variant: "node-20" })).status).toBe(200);
      expect((await upload([{ name: "a" }], { pr_number: "" })).status).toBe(200);
      const invalid = await upload([{ name: "a" }], { pr_number: "4x" });
      expect(invalid.status).toBe(400);
      expect(invalid.body.errors[0].path).toBe("pr_number");
    });

    it("reports a failure of a quarantined test as quarantined, as it stands after the upload", async () => {
      // Fails and passes on the same commit: flaky, so quarantined automatically (docs/test-health.md#quarantine).
      await upload([{ name: "flips", outcome: "failed" }]);
      const second = await upload([{ name: "flips" }]);
      expect(second.body.failures).toBe(0);
      const third = await upload([{ name: "flips", outcome: "failed" }, { name: "steady" }], {
        commit_sha: sha(2),
      });
      expect(third.body).toMatchObject({
        failures: 1,
        quarantined_failures: 1,
        unquarantined_failures: [],
        all_failures_quarantined: true,
      });
    });

    it("stores one run per attempt of a re-run test, so a pass after a failure on one commit is flaky", async () => {
      const surefire = `<testsuite name="suite"><testcase name="retried" classname="pkg.Widget">
        <flakyFailure message="timeout after 30s"><stackTrace>at Widget.java:1</stackTrace></flakyFailure>
      </testcase></testsuite>`;
      const { body } = await post("upload", {
        ...target,
        commit_sha: sha(1),
        branch: "main",
        junit_xml: [surefire],
      });
      expect(body).toMatchObject({ test_results: 1, failures: 0 });
      expect(await rowCount("test_results")).toBe(2);
      const test = (await details(widgetsTestId("retried"))).body.test;
      expect(test.status).toMatchObject({
        value: "flaky",
        reason: `failed and passed on commit ${sha(1).slice(0, 7)} on main on 2026-11-21`,
      });
      expect(test.quarantined).toBe(true);
      expect(test.most_common_failures).toEqual([
        { summary: "timeout after <n>s", occurrence_count: 1, last_occurrence: "2026-11-21T12:00:00.000Z" },
      ]);
    });

    it("dates results at started_at, and refuses a started_at days ahead", async () => {
      await upload([{ name: "old", outcome: "failed" }], {
        started_at: new Date(now - 3 * DAY).toISOString(),
      });
      expect((await failing(now - 4 * DAY, now - 2 * DAY)).body.tests.map((t: any) => t.name)).toEqual([
        "old",
      ]);
      expect((await failing(now - 2 * DAY, now)).body.tests).toEqual([]);
      const ahead = await upload([{ name: "x" }], { started_at: new Date(now + 2 * DAY).toISOString() });
      expect(ahead.status).toBe(400);
      expect(ahead.body.code).toBe("invalid_request");
    });
  });

  describe("idempotent uploads", () => {
    const uploadBody = (cases: CaseSpec[]) => ({
      ...target,
      commit_sha: sha(1),
      branch: "main",
      junit_xml: [junitReport(cases)],
    });
    const send = async (body: unknown, idempotencyKey: string) => {
      const response = await fetch(`${server.url}/v1/flaky-tests/upload`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-api-token": token,
          "idempotency-key": idempotencyKey,
        },
        body: JSON.stringify(body),
      });
      return {
        status: response.status,
        type: response.headers.get("content-type"),
        body: (await response.json()) as any,
      };
    };
    const stored = async () => ({
      uploads: await rowCount("test_uploads"),
      results: await rowCount("test_results"),
      failures: await rowCount("test_failures"),
    });

    it("answers a retried upload the first answer and stores nothing again, even while the first is being stored", async () => {
      const body = uploadBody([{ name: "adds" }, { name: "removes", outcome: "failed" }]);
      const first = await send(body, "run-7-attempt-1");
      expect(first.status).toBe(200);
      const once = await stored();
      expect(once).toEqual({ uploads: 1, results: 2, failures: 1 });
      // A CLI that timed out sends it again, twice at once.
      const retries = await Promise.all([send(body, "run-7-attempt-1"), send(body, "run-7-attempt-1")]);
      for (const retry of retries) expect(retry).toEqual(first);
      expect(await stored()).toEqual(once);
      const failing = (await details(widgetsTestId("removes"))).body.test;
      expect(failing.failure_rate_last_7d).toBe(1);

      // Concurrent first attempts of another upload: one is stored, both are answered alike.
      const other = uploadBody([{ name: "adds", outcome: "failed" }]);
      const [a, b] = await Promise.all([send(other, "run-8"), send(other, "run-8")]);
      expect(a).toEqual(b);
      expect(await stored()).toEqual({ uploads: 2, results: 3, failures: 2 });
      // Without a key, a request is an upload of its own, unless it repeats an earlier one byte for byte.
      const unkeyed = await upload([{ name: "adds" }]);
      expect((await stored()).uploads).toBe(3);
      expect(await upload([{ name: "adds" }])).toEqual(unkeyed);
      expect(await stored()).toEqual({ uploads: 3, results: 4, failures: 2 });
    });

    it("recognises the same reports sent again for the same commit and run without a key, and nothing else", async () => {
      const run = { run_url: "https://ci.example/runs/7", job_name: "unit" };
      const first = await upload([{ name: "adds", outcome: "failed" }], run);
      expect(first.status).toBe(200);
      const again = await upload([{ name: "adds", outcome: "failed" }], run);
      expect(again.body).toEqual(first.body);
      expect(await stored()).toEqual({ uploads: 1, results: 1, failures: 1 });
      expect((await details(widgetsTestId("adds"))).body.test.failure_rate_last_7d).toBe(1);

      // Another run, another commit or other reports are uploads of their own.
      await upload([{ name: "adds", outcome: "failed" }], { ...run, run_url: "https://ci.example/runs/8" });
      await upload([{ name: "adds", outcome: "failed" }], { ...run, commit_sha: sha(2) });
      await upload([{ name: "adds" }], run);
      expect((await stored()).uploads).toBe(4);
    });

    it("refuses a key sent before with another upload, and a header that is not a key, storing nothing", async () => {
      expect((await send(uploadBody([{ name: "adds" }]), "key-1")).status).toBe(200);
      const before = await stored();
      const reused = await send(uploadBody([{ name: "adds", outcome: "failed" }]), "key-1");
      expect(reused.status).toBe(422);
      expect(reused.type).toContain("application/problem+json");
      expect(reused.body.code).toBe("idempotency_key_reused");
      const otherBranch = await send({ ...uploadBody([{ name: "adds" }]), branch: "develop" }, "key-1");
      expect(otherBranch.body.code).toBe("idempotency_key_reused");
      const blank = await send(uploadBody([{ name: "adds" }]), "not a key");
      expect(blank.status).toBe(400);
      expect(blank.body).toMatchObject({ code: "invalid_request", errors: [{ path: "Idempotency-Key" }] });
      expect(await stored()).toEqual(before);
    });
  });

  describe("classification and quarantine", () => {
    it("is broken after three failures in a row on the default branch the checkout names, and never auto-quarantined", async () => {
      for (const n of [1, 2, 3]) {
        now += HOUR;
        const defaultBranch = n === 1 ? { default_branch: "trunk" } : {};
        await upload([{ name: "dead", outcome: "failed" }], {
          commit_sha: sha(n),
          branch: "trunk",
          ...defaultBranch,
        });
      }
      const test = (await details(widgetsTestId("dead"))).body.test;
      expect(test.status).toEqual({
        value: "broken",
        reason: "failed the last 3 runs on trunk, latest on commit aaaaaaa",
        timestamp: new Date(now).toISOString(),
      });
      expect(test.quarantined).toBe(false);
      expect((await unhealthy("BROKEN")).body.tests.map((t: any) => t.id)).toEqual([widgetsTestId("dead")]);
    });

    it("counts a queue's target branch as stable, and other branches not", async () => {
      await store.db.transaction().execute((trx) =>
        insertQueue(
          trx,
          {
            id: newId(),
            repositoryId: repository.id,
            branch: "release/2.x",
            settings: DEFAULT_QUEUE_SETTINGS,
          },
          now,
        ),
      );
      for (const [n, outcome] of [
        [1, "failed"],
        [2, "passed"],
      ] as const) {
        await upload([{ name: "onRelease", outcome }], { commit_sha: sha(n), branch: "release/2.x" });
        await upload([{ name: "onFeatureOnly", outcome }], { commit_sha: sha(n + 10), branch: "feature/x" });
      }
      expect((await details(widgetsTestId("onRelease"))).body.test.status).toMatchObject({
        value: "flaky",
        reason: "failed 1 of 2 runs on release/2.x in the last 7 days, latest on commit aaaaaaa",
      });
      expect((await details(widgetsTestId("onFeatureOnly"))).body.test.status.value).toBe("healthy");
    });

    it("quarantines by setting: always, never, and auto while flaky", async () => {
      await upload([{ name: "flips", outcome: "failed" }, { name: "solid" }]);
      await upload([{ name: "flips" }, { name: "solid" }]);
      const flipsAt = now;

      now += HOUR;
      const never = await post("set-quarantine-setting", {
        ...target,
        test_id: widgetsTestId("flips"),
        setting: "NEVER",
      });
      expect(never.status).toBe(200);
      expect(never.body.test).toMatchObject({
        quarantined: false,
        quarantine_setting: "never",
        status: { value: "flaky" },
      });

      const always = await post("set-quarantine-setting", {
        ...target,
        test_id: widgetsTestId("solid"),
        setting: "always",
      });
      expect(always.body.test).toMatchObject({
        quarantined: true,
        quarantine_setting: "always",
        status: { value: "healthy" },
      });

      now += HOUR;
      const auto = await post("set-quarantine-setting", {
        ...target,
        test_id: widgetsTestId("flips"),
        setting: "Auto",
      });
      expect(auto.body.test).toMatchObject({ quarantined: true, quarantine_setting: "auto" });

      const listed = (await quarantined()).body.quarantined_tests;
      expect(listed).toEqual([
        {
          name: "flips",
          parent: "suite",
          file: "",
          classname: "pkg.Widget",
          codeowners: [],
          quarantined_at: new Date(now).toISOString(),
          status_last_updated_at: new Date(flipsAt).toISOString(),
          test_case_id: widgetsTestId("flips"),
          variant: "",
          status: { value: "flaky", reason: expect.any(String), timestamp: new Date(flipsAt).toISOString() },
          quarantine_setting: "auto",
        },
        expect.objectContaining({
          name: "solid",
          quarantine_setting: "always",
          quarantined_at: new Date(now - HOUR).toISOString(),
        }),
      ]);
    });

    it("turns the repository's auto-quarantine off and on, releasing and quarantining its flaky tests", async () => {
      expect((await post("get-auto-quarantine", target)).body).toEqual({ auto_quarantine: true });
      await upload([{ name: "flips", outcome: "failed" }]);
      await upload([{ name: "flips" }], { commit_sha: sha(2) });
      expect((await details(widgetsTestId("flips"))).body.test).toMatchObject({ quarantined: true });

      now += HOUR;
      const off = await post("set-auto-quarantine", { ...target, enabled: false });
      expect(off).toMatchObject({
        status: 200,
        body: { auto_quarantine: false, tests_quarantined: 0, tests_released: 1 },
      });
      expect((await post("get-auto-quarantine", target)).body).toEqual({ auto_quarantine: false });
      expect((await details(widgetsTestId("flips"))).body.test).toMatchObject({
        quarantined: false,
        quarantine_setting: "auto",
      });
      // Its failures now count: a CI job wrapped in `switchyard test` fails on them.
      const failed = await upload([{ name: "flips", outcome: "failed" }], { commit_sha: sha(3) });
      expect(failed.body).toMatchObject({ quarantined_failures: 0, all_failures_quarantined: false });
      expect((await quarantined()).body.quarantined_tests).toEqual([]);

      now += HOUR;
      const on = await post("set-auto-quarantine", { ...target, enabled: true });
      expect(on.body).toEqual({ auto_quarantine: true, tests_quarantined: 1, tests_released: 0 });
      expect((await quarantined()).body.quarantined_tests).toEqual([
        expect.objectContaining({ name: "flips", quarantined_at: new Date(now).toISOString() }),
      ]);
    });

    it("refuses a sloppy auto-quarantine setting and another organization's repository, changing nothing", async () => {
      const sloppy = await post("set-auto-quarantine", { ...target, enabled: "no" });
      expect(sloppy.status).toBe(400);
      expect(sloppy.body.errors).toEqual([{ path: "enabled", message: expect.any(String) }]);
      const missing = await post("set-auto-quarantine", target);
      expect(missing.status).toBe(400);
      const foreign = await post("set-auto-quarantine", {
        ...target,
        org_url_slug: "globex",
        enabled: false,
      });
      expect(foreign).toMatchObject({ status: 403, body: { code: "forbidden" } });
      expect((await post("get-auto-quarantine", target)).body).toEqual({ auto_quarantine: true });
    });

    it("answers 404 test_not_found for a test of no upload, and 400 for an id that is not a UUID", async () => {
      const missing = await post("set-quarantine-setting", {
        ...target,
        test_id: widgetsTestId("nope"),
        setting: "always",
      });
      expect(missing.status).toBe(404);
      expect(missing.body.code).toBe("test_not_found");
      const bad = await details("not-a-uuid");
      expect(bad.status).toBe(400);
      expect(bad.body.errors).toEqual([{ path: "test_id", message: expect.stringContaining("uuid") }]);
      const badSetting = await post("set-quarantine-setting", {
        ...target,
        test_id: widgetsTestId("nope"),
        setting: "sometimes",
      });
      expect(badSetting.status).toBe(400);
    });
  });

  describe("records", () => {
    it("fills every field of the full record", async () => {
      const codeowners = "# owners\n*.ts @acme/web\nsrc/cart/ @acme/cart @octocat\n";
      const cart = { name: "adds an item", classname: "cart", file: "src/cart/cart.test.ts" };
      const specs: [number, CaseSpec["outcome"], string, number | null][] = [
        [8 * DAY, "failed", "Timeout after 5000 ms", 1], // outside the 7-day window
        [3 * DAY, "failed", "Timeout after 3000 ms", 2],
        [2 * DAY, "passed", "", 3],
        [20 * HOUR, "failed", "expected 3 to equal 4", 3],
        [2 * HOUR, "failed", "Timeout after 1200 ms", null],
        [HOUR, "passed", "", 4],
        [HOUR / 2, "skipped", "", 4],
      ];
      for (const [ago, outcome, message, pr] of specs) {
        await upload([{ ...cart, outcome, message }], {
          started_at: new Date(now - ago).toISOString(),
          commit_sha: sha(ago),
          branch: "feature/cart",
          pr_number: pr,
          codeowners,
        });
      }
      const id = testCaseId(repo, {
        filePath: "src/cart/cart.test.ts",
        classname: "cart",
        parent: "suite",
        name: "adds an item",
      });
      const { status, body } = await details(id.toUpperCase());
      expect(status).toBe(200);
      expect(body.test).toEqual({
        id,
        repository: { html_url: "https://github.com/acme/widgets" },
        html_url: `https://switchyard.example/tests/${id}`,
        name: "adds an item",
        variant: "",
        status: {
          value: "healthy",
          reason:
            "failed 3 of 5 runs in the last 7 days, but never passed on a commit or stable branch where it failed",
          timestamp: expect.any(String),
        },
        most_common_failures: [
          {
            summary: "Timeout after <n> ms",
            occurrence_count: 2,
            last_occurrence: new Date(now - 2 * HOUR).toISOString(),
          },
          {
            summary: "expected <n> to equal <n>",
            occurrence_count: 1,
            last_occurrence: new Date(now - 20 * HOUR).toISOString(),
          },
        ],
        failure_rate_last_7d: 3 / 5,
        failure_rate_last_24h: 2 / 3,
        codeowners: ["@acme/cart", "@octocat"],
        pull_requests_impacted_last_7d: 2,
        quarantined: false,
        quarantine_setting: "auto",
        file_path: "src/cart/cart.test.ts",
        parent: "suite",
        classname: "cart",
        ticket: null,
      });
    });

    it("takes CODEOWNERS from the default branch's checkout, and from any branch while it knows none", async () => {
      const owned = { name: "owned", file: "src/a.ts" };
      const ownersOf = async () =>
        (await details(widgetsTestId("owned", { filePath: "src/a.ts" }))).body.test.codeowners;
      await upload([owned]);
      expect(await ownersOf()).toEqual([]);
      await upload([owned], { branch: "feature/x", codeowners: "* @acme/early\n" });
      expect(await ownersOf()).toEqual(["@acme/early"]);
      await upload([owned], { branch: "main", codeowners: "src/ @acme/core\n" });
      expect(await ownersOf()).toEqual(["@acme/core"]);
      // A pull request's change to the file does not move the owners; the default branch's does.
      await upload([owned], { branch: "feature/y", codeowners: "* @acme/pr\n" });
      expect(await ownersOf()).toEqual(["@acme/core"]);
      await upload([owned], { branch: "main", codeowners: "" });
      expect(await ownersOf()).toEqual([]);
    });

    it("classifies with main as the default branch while no upload named one", async () => {
      for (const n of [1, 2, 3]) await upload([{ name: "down", outcome: "failed" }], { commit_sha: sha(n) });
      expect((await details(widgetsTestId("down"))).body.test.status.reason).toBe(
        "failed the last 3 runs on main, latest on commit aaaaaaa",
      );
    });
  });

  describe("listings", () => {
    it("lists failing tests in a range, most failures first, then by name", async () => {
      await upload([
        { name: "b", outcome: "failed" },
        { name: "a", outcome: "failed" },
        { name: "c", outcome: "failed" },
        { name: "ok" },
      ]);
      now += HOUR;
      await upload([{ name: "c", outcome: "failed" }], { commit_sha: sha(2) });
      const { status, body } = await failing(now - DAY, now + 1);
      expect(status).toBe(200);
      expect(body.tests.map((t: any) => t.name)).toEqual(["c", "a", "b"]);
      expect(body.tests[0]).toHaveProperty("failure_rate_last_7d", 1);
      expect(body.page).toEqual({
        total_rows: 3,
        total_pages: 1,
        next_page_token: "",
        prev_page_token: "",
        last_page_token: "",
        page_index: 0,
      });
      // end_time is exclusive
      expect((await failing(now - DAY, now)).body.tests.map((t: any) => t.name)).toEqual(["a", "b", "c"]);
    });

    it("refuses a range over 7 days, and one that ends before it starts", async () => {
      const tooLong = await failing(now - 7 * DAY - 1, now);
      expect(tooLong.status).toBe(400);
      expect(tooLong.body.code).toBe("time_range_too_long");
      const backwards = await failing(now, now - 1);
      expect(backwards.status).toBe(400);
      expect(backwards.body).toMatchObject({ code: "invalid_request", errors: [{ path: "end_time" }] });
      const notATime = await post("list-failing-tests", {
        ...target,
        start_time: "yesterday",
        end_time: "now",
        page_query: {},
      });
      expect(notATime.status).toBe(400);
      expect(notATime.body.errors.map((e: any) => e.path).sort()).toEqual(["end_time", "start_time"]);
    });

    it("lists unhealthy tests by status in any case, most recent change first, without rates", async () => {
      await upload([{ name: "first", outcome: "failed" }]);
      await upload([{ name: "first" }]);
      now += HOUR;
      await upload([{ name: "second", outcome: "failed" }], { commit_sha: sha(2) });
      await upload([{ name: "second" }], { commit_sha: sha(2) });
      const { body } = await unhealthy("Flaky");
      expect(body.tests.map((t: any) => t.name)).toEqual(["second", "first"]);
      expect(body.tests[0]).not.toHaveProperty("failure_rate_last_7d");
      expect(body.tests[0]).not.toHaveProperty("most_common_failures");
      expect(body.tests[0]).toMatchObject({
        quarantined: true,
        pull_requests_impacted_last_7d: 0,
        ticket: null,
      });
      expect((await unhealthy("broken")).body.tests).toEqual([]);
      expect((await unhealthy("healthy")).status).toBe(400);
    });

    it("defaults the page size to 25 and refuses more than 100", async () => {
      await upload(Array.from({ length: 30 }, (_, i) => ({ name: `t${i}`, outcome: "failed" as const })));
      const range = [now - HOUR, now + HOUR] as const;
      expect((await failing(...range)).body.tests).toHaveLength(25);
      expect((await failing(...range, { page_size: 0, page_token: "" })).body.page).toMatchObject({
        total_rows: 30,
        total_pages: 2,
      });
      const tooBig = await failing(...range, { page_size: 101 });
      expect(tooBig.status).toBe(400);
      expect(tooBig.body.errors[0].path).toBe("page_query.page_size");
      expect((await post("list-quarantined-tests", target)).status).toBe(400);
    });
  });

  describe("paging", () => {
    /** 23 flaky tests whose statuses changed at 23 different times, some at the same time. */
    async function manyFlakyTests() {
      for (let group = 0; group < 12; group++) {
        now += HOUR;
        const names = [`t${group * 2}`, `t${group * 2 + 1}`].filter((name) => name !== "t23");
        await upload(
          names.map((name) => ({ name, outcome: "failed" as const })),
          { commit_sha: sha(group) },
        );
        await upload(
          names.map((name) => ({ name })),
          { commit_sha: sha(group) },
        );
      }
    }

    async function walk(
      first: any,
      direction: "next_page_token" | "prev_page_token",
      page: (token: string) => Promise<any>,
    ) {
      const pages = [first];
      for (let current = first; current.page[direction] !== "";) {
        current = (await page(current.page[direction])).body;
        pages.push(current);
      }
      return pages;
    }

    it("walks every row exactly once, forward and back, with consistent page objects", async () => {
      await manyFlakyTests();
      const list = (page_token: string) => unhealthy("flaky", { page_size: 5, page_token });
      const first = (await list("")).body;
      expect(first.page).toMatchObject({
        total_rows: 23,
        total_pages: 5,
        page_index: 0,
        prev_page_token: "",
      });
      const forward = await walk(first, "next_page_token", list);
      expect(forward.map((p) => p.page.page_index)).toEqual([0, 1, 2, 3, 4]);
      expect(forward.map((p) => p.tests.length)).toEqual([5, 5, 5, 5, 3]);
      const names = forward.flatMap((p) => p.tests.map((t: any) => t.name));
      expect(new Set(names).size).toBe(23);
      // Most recent status change first (t20 and t21 changed together).
      expect(names[0]).toBe("t22");
      expect(names.slice(1, 3).sort()).toEqual(["t20", "t21"]);
      expect(forward.at(-1).page).toMatchObject({ next_page_token: "", last_page_token: "", page_index: 4 });

      const last = (await list(first.page.last_page_token)).body;
      expect(last).toEqual(forward.at(-1));
      const backward = await walk(last, "prev_page_token", list);
      expect(backward.map((p) => p.page.page_index)).toEqual([4, 3, 2, 1, 0]);
      expect(backward.map((p) => p.tests).reverse()).toEqual(forward.map((p) => p.tests));
    });

    it("never repeats nor loses a row that stays put while other rows change", async () => {
      await manyFlakyTests();
      const list = (page_token: string) => unhealthy("flaky", { page_size: 4, page_token });
      const first = (await list("")).body;
      const seen: string[] = first.tests.map((t: any) => t.name);
      const [changed, ...rest] = seen;
      // A row already seen becomes healthy-then-flaky again (its sort key moves to the front), a new flaky test
      // appears, and an unseen row turns broken.
      now += DAY;
      await upload([{ name: changed! }], { commit_sha: sha(100) });
      for (const n of [101, 102, 103])
        await upload([{ name: "t0", outcome: "failed" }], { commit_sha: sha(n) });
      await upload([{ name: "newcomer", outcome: "failed" }], { commit_sha: sha(104) });
      await upload([{ name: "newcomer" }], { commit_sha: sha(104) });
      let page = first;
      while (page.page.next_page_token !== "") {
        page = (await list(page.page.next_page_token)).body;
        seen.push(...page.tests.map((t: any) => t.name));
      }
      expect(new Set(seen).size).toBe(seen.length);
      const untouched = Array.from({ length: 23 }, (_, i) => `t${i}`).filter((name) => name !== "t0");
      for (const name of untouched) expect(seen).toContain(name);
      expect(rest.every((name) => seen.filter((s) => s === name).length === 1)).toBe(true);
      expect(seen).not.toContain("newcomer");
    });

    it("refuses forged, altered, foreign and expired page tokens with 400 invalid_page_token", async () => {
      await manyFlakyTests();
      const { next_page_token: next } = (await unhealthy("flaky", { page_size: 5 })).body.page;
      const [payload, mac] = next.split(".");
      const decoded = JSON.parse(Buffer.from(payload, "base64url").toString());
      const altered = `${Buffer.from(JSON.stringify({ ...decoded, i: 3 })).toString("base64url")}.${mac}`;
      const flipped = `${payload}.${mac.slice(0, -2)}${mac.endsWith("AA") ? "BB" : "AA"}`;
      for (const forged of ["garbage", "a.b", altered, flipped, `${next}.x`]) {
        const response = await unhealthy("flaky", { page_size: 5, page_token: forged });
        expect(response.status).toBe(400);
        expect(response.body.code).toBe("invalid_page_token");
      }
      expect((await unhealthy("flaky", { page_size: 6, page_token: next })).body.code).toBe(
        "invalid_page_token",
      );
      expect((await unhealthy("broken", { page_size: 5, page_token: next })).body.code).toBe(
        "invalid_page_token",
      );
      expect((await quarantined({ page_size: 5, page_token: next })).body.code).toBe("invalid_page_token");
      expect((await unhealthy("flaky", { page_size: 5, page_token: next })).status).toBe(200);
      now += DAY + HOUR;
      expect((await unhealthy("flaky", { page_size: 5, page_token: next })).body).toMatchObject({
        status: 400,
        code: "invalid_page_token",
        detail: expect.stringContaining("expired"),
      });
    });

    it("pages list-failing-tests and list-quarantined-tests the same way", async () => {
      await manyFlakyTests();
      const failingPages = await walk(
        (await failing(now - 7 * DAY + 1, now + 1, { page_size: 10 })).body,
        "next_page_token",
        (page_token) => failing(now - 7 * DAY + 1, now + 1, { page_size: 10, page_token }),
      );
      expect(failingPages.flatMap((p) => p.tests.map((t: any) => t.name)).sort()).toEqual(
        Array.from({ length: 23 }, (_, i) => `t${i}`).sort(),
      );
      const quarantinedPages = await walk(
        (await quarantined({ page_size: 7 })).body,
        "next_page_token",
        (page_token) => quarantined({ page_size: 7, page_token }),
      );
      expect(quarantinedPages.map((p) => p.quarantined_tests.length)).toEqual([7, 7, 7, 2]);
    });
  });

  describe("access", () => {
    it("answers every error as problem JSON with a stable code", async () => {
      const cases: [string, unknown, string | undefined, number, string][] = [
        ["list-quarantined-tests", { ...target, page_query: {} }, undefined, 401, "unauthenticated"],
        [
          "list-quarantined-tests",
          { ...target, org_url_slug: "other", page_query: {} },
          token,
          403,
          "forbidden",
        ],
        [
          "list-quarantined-tests",
          { repo: { ...repo, owner: "stranger" }, org_url_slug: "acme", page_query: {} },
          token,
          403,
          "forbidden",
        ],
        [
          "list-quarantined-tests",
          { repo: { ...repo, host: "gitlab.com" }, org_url_slug: "acme", page_query: {} },
          token,
          400,
          "unsupported_host",
        ],
        [
          "upload",
          { ...target, commit_sha: "not a sha", branch: "main", junit_xml: [] },
          token,
          400,
          "invalid_request",
        ],
        ["get-test-details", { ...target }, token, 400, "invalid_request"],
      ];
      for (const [path, body, as, status, code] of cases) {
        const response = await server.post(`flaky-tests/${path}`, body, as);
        expect(response.status, `${path} ${code}`).toBe(status);
        expect(response.headers.get("content-type")).toContain("application/problem+json");
        expect(((await response.json()) as any).code).toBe(code);
      }
    });

    it("works for any repository of the token's organization, without the GitHub App and without GitHub", async () => {
      const gadgets = { repo: { ...repo, owner: "ACME", name: "gadgets" }, org_url_slug: "acme" };
      const codeowners = "*.ts @acme/gadgets\n";
      const junit_xml = [junitReport([{ name: "flips", file: "src/g.ts", outcome: "failed" }])];
      const uploaded = await post("upload", {
        ...gadgets,
        commit_sha: sha(1),
        branch: "develop",
        default_branch: "develop",
        codeowners,
        junit_xml,
      });
      expect(uploaded.status).toBe(200);
      expect(uploaded.body.failures).toBe(1);
      const id = testCaseId(
        { ...gadgets.repo, host: "github.com" },
        { filePath: "src/g.ts", classname: "pkg.Widget", parent: "suite", name: "flips" },
      );
      const test = (await post("get-test-details", { ...gadgets, test_id: id })).body.test;
      expect(test.codeowners).toEqual(["@acme/gadgets"]);
      expect(test.repository.html_url).toBe("https://github.com/ACME/gadgets");

      const junitPass = [junitReport([{ name: "flips", file: "src/g.ts" }])];
      await post("upload", { ...gadgets, commit_sha: sha(1), branch: "develop", junit_xml: junitPass });
      const reads = [
        post("list-unhealthy-tests", { ...gadgets, status: "flaky", page_query: {} }),
        post("list-quarantined-tests", { ...gadgets, page_query: {} }),
        post("list-failing-tests", {
          ...gadgets,
          start_time: new Date(now - DAY).toISOString(),
          end_time: new Date(now + 1).toISOString(),
          page_query: {},
        }),
      ];
      for (const { status, body } of await Promise.all(reads)) {
        expect(status).toBe(200);
        const [listed] = body.tests ?? body.quarantined_tests;
        expect(listed.codeowners).toEqual(["@acme/gadgets"]);
      }
      // Failed and passed on one commit of the default branch the checkout named.
      expect((await post("get-test-details", { ...gadgets, test_id: id })).body.test.status.reason).toBe(
        `failed and passed on commit ${sha(1).slice(0, 7)} on develop on 2026-11-21`,
      );
    });

    it("describes the endpoints in the OpenAPI document", async () => {
      const document = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as any;
      const listFailing = document.paths["/v1/flaky-tests/list-failing-tests"].post;
      const request = listFailing.requestBody.content["application/json"].schema;
      expect(request.required).toEqual(
        expect.arrayContaining(["repo", "org_url_slug", "start_time", "end_time", "page_query"]),
      );
      expect(request.properties.page_query.properties.page_size).toMatchObject({ minimum: 0, maximum: 100 });
      expect(Object.keys(listFailing.responses)).toEqual(
        expect.arrayContaining(["200", "400", "401", "403", "404"]),
      );
      expect(Object.keys(document.components.schemas.TestRecord.properties)).toEqual(
        expect.arrayContaining([
          "most_common_failures",
          "failure_rate_last_7d",
          "codeowners",
          "ticket",
          "status",
        ]),
      );
      expect(document.components.schemas.PageObject.required).toHaveLength(6);
      expect(document.components.schemas.QuarantinedTestRecord).toBeDefined();
    });

    it("answers 405 to GET and 415 to a body that is not JSON", async () => {
      const get = await fetch(`${server.url}/v1/flaky-tests/upload`, { headers: { "x-api-token": token } });
      expect(get.status).toBe(405);
      const text = await fetch(`${server.url}/v1/flaky-tests/upload`, {
        method: "POST",
        headers: { "x-api-token": token, "content-type": "application/xml" },
        body: "<testsuite/>",
      });
      expect(text.status).toBe(415);
    });
  });

  describe("hostile input", () => {
    const uploadDocuments = (junit_xml: string[]) =>
      post("upload", { ...target, commit_sha: sha(1), branch: "main", junit_xml });

    it("refuses an entity bomb without expanding it, naming the document and line", async () => {
      const entities = Array.from(
        { length: 10 },
        (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i};`.repeat(10)}">`,
      ).join("\n");
      const bomb = `<?xml version="1.0"?>\n<!DOCTYPE lolz [\n<!ENTITY lol0 "lol">\n${entities}\n]>\n<testsuite name="s"><testcase name="&lol10;"/></testsuite>`;
      const { status, body } = await uploadDocuments([junitReport([{ name: "fine" }]), bomb]);
      expect(status).toBe(400);
      expect(body).toMatchObject({
        code: "invalid_junit",
        detail: expect.stringMatching(/^junit_xml\[1\] .*line \d+, column \d+: a DOCTYPE is not allowed/),
        errors: [{ path: "junit_xml.1", message: expect.stringContaining("line") }],
      });
    });

    it("stores nothing of an upload whose later document is truncated", async () => {
      const good = junitReport(
        Array.from({ length: 3000 }, (_, i) => ({
          name: `t${i}`,
          outcome: i % 7 ? ("passed" as const) : ("failed" as const),
        })),
      );
      const truncated = junitReport([{ name: "cut" }]).slice(0, -40);
      const { status, body } = await uploadDocuments([good, good, truncated]);
      expect(status).toBe(400);
      expect(body.detail).toMatch(/^junit_xml\[2\] .*unexpected end of document/);
      for (const table of ["test_results", "test_cases", "test_uploads", "test_failures"] as const) {
        expect(await rowCount(table), table).toBe(0);
      }
    });

    it("stores invalid UTF-8 with replacement characters", async () => {
      const before = Buffer.from(
        `{"repo":{"host":"github.com","owner":"acme","name":"widgets"},"org_url_slug":"acme","commit_sha":"${sha(1)}","branch":"main","junit_xml":["<testsuite name=\\"s\\"><testcase classname=\\"c\\" name=\\"bad `,
      );
      const after = Buffer.from(` bytes\\"/></testsuite>"]}`);
      const response = await fetch(`${server.url}/v1/flaky-tests/upload`, {
        method: "POST",
        headers: { "x-api-token": token, "content-type": "application/json" },
        body: Buffer.concat([before, Buffer.from([0xff, 0xfe, 0xc3]), after]),
      });
      expect(response.status).toBe(200);
      const name = "bad \uFFFD\uFFFD\uFFFD bytes";
      const test = (await details(testCaseId(repo, { classname: "c", parent: "s", name }))).body.test;
      expect(test.name).toBe(name);
    });

    it("stores a 20 MiB report with absurd values, bounded", async () => {
      const hugeName = "n".repeat(1024 * 1024);
      const parts = [
        `<testsuites><testsuite name="big">`,
        `<testcase name="${hugeName}" classname="c" time="-1e308"><failure message="${"m".repeat(100_000)}">${"trace ".repeat(800_000)}</failure><system-out>${"o".repeat(8 * 1024 * 1024)}</system-out></testcase>`,
        `<testcase name="weird" classname="\u0001ctl" time="NaN"/>`,
      ];
      // As close to the 20 MiB body limit as the JSON around the report allows.
      let bodyBytes = 1000 + parts.reduce((bytes, part) => bytes + JSON.stringify(part).length - 2, 0);
      for (let i = 0; bodyBytes < 20 * 1024 * 1024 - 2000; i++) {
        const part = `<testcase name="case ${i}" classname="c" time="0.001"/>`;
        parts.push(part);
        bodyBytes += JSON.stringify(part).length - 2;
      }
      parts.push("</testsuite></testsuites>");
      const report = parts.join("");
      const { status, body } = await uploadDocuments([report]);
      expect(status).toBe(200);
      expect(body.test_results).toBe(parts.length - 2);
      expect(body.failures).toBe(1);
      const [failed] = body.unquarantined_failures;
      expect(failed.name).toHaveLength(4096);
      const test = (await details(failed.test_id)).body.test;
      expect(test.most_common_failures[0].summary).toHaveLength(200);
      expect(
        (await details(testCaseId(repo, { classname: "\uFFFDctl", parent: "big", name: "weird" }))).status,
      ).toBe(200);
    }, 60_000);

    it("refuses elements nested absurdly deep", async () => {
      const deep = `<testsuites>${"<testsuite>".repeat(70)}${"</testsuite>".repeat(70)}</testsuites>`;
      const { status, body } = await uploadDocuments([deep]);
      expect(status).toBe(400);
      expect(body.detail).toContain("nested more than 64 deep");
    });
  });
});
