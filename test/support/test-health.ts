// Helpers for test-health tests: JUnit reports written from a short description, and the app with a repository to
// upload results of, which no GitHub App is installed on, and a GitHub that refuses every request and must not
// be asked at all: test health works without it.
import nock from "nock";
import { afterAll, afterEach, beforeAll, beforeEach, expect } from "vitest";
import type { UploadInput } from "../../src/test-health-use-cases/ingestion.ts";
import { testCaseId } from "../../src/test-health/index.ts";
import type { Dialect } from "../../src/store/database.ts";
import { newId } from "../../src/store/ids.ts";
import { recordRepository, type Repository } from "../../src/store/repositories.ts";
import { type ServerFixture, useTestServer } from "./api-server.ts";
import { createTestStore, type TestStore } from "./database.ts";

export interface CaseSpec {
  name: string;
  classname?: string;
  file?: string;
  outcome?: "passed" | "failed" | "error" | "skipped";
  message?: string;
}

const escape = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");

/** One JUnit XML document: a suite named `suite` with the given cases. */
export function junitReport(cases: CaseSpec[], suite = "suite"): string {
  const body = cases
    .map((spec) => {
      const attributes = [
        `name="${escape(spec.name)}"`,
        `classname="${escape(spec.classname ?? "pkg.Widget")}"`,
        ...(spec.file === undefined ? [] : [`file="${escape(spec.file)}"`]),
        'time="0.01"',
      ].join(" ");
      switch (spec.outcome ?? "passed") {
        case "passed":
          return `    <testcase ${attributes}/>`;
        case "skipped":
          return `    <testcase ${attributes}><skipped/></testcase>`;
        case "failed":
        case "error": {
          const element = spec.outcome === "error" ? "error" : "failure";
          const message = escape(spec.message ?? "expected true to be false");
          return `    <testcase ${attributes}><${element} message="${message}">at widget.test.ts:12</${element}></testcase>`;
        }
      }
    })
    .join("\n");
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n  <testsuite name="${escape(suite)}" tests="${cases.length}">\n${body}\n  </testsuite>\n</testsuites>\n`;
}

export interface TestHealthStore {
  store: TestStore;
  /** acme/widgets, as test health records a repository an upload names (no GitHub App installed). */
  repository: Repository;
}

const recordWidgets = (store: TestStore) => recordRepository(store.db, widgets, TEST_HEALTH_START);

/** A database of its own for each test, holding acme/widgets. */
export function useTestHealthStore(dialect: Dialect): TestHealthStore {
  const fixture = {} as TestHealthStore;
  beforeEach(async () => {
    fixture.store = await createTestStore(dialect);
    fixture.repository = await recordWidgets(fixture.store);
  });
  afterEach(async () => {
    await fixture.store.destroy();
  });
  return fixture;
}

/**
 * An upload to `repository` as ingestion takes it: of `cases` (or of whole documents), on main at commit a…a,
 * received at `now`; `overrides` change any of it.
 */
export function uploadInput(
  repository: Repository,
  now: number,
  cases: CaseSpec[] | string[],
  overrides: Partial<UploadInput> = {},
): UploadInput {
  return {
    repository,
    id: newId(),
    commitSha: "a".repeat(40),
    branch: "main",
    prNumber: null,
    jobName: null,
    variant: "",
    runUrl: null,
    repoRoot: null,
    startedAt: null,
    documents: typeof cases[0] === "string" ? (cases as string[]) : [junitReport(cases as CaseSpec[])],
    stableBranches: new Set(["main"]),
    now,
    ...overrides,
  };
}

/** The repository test-health tests upload to, and the target of their requests (repo and org_url_slug). */
export const widgets = { host: "github.com", owner: "acme", name: "widgets" };

/**
 * The id of a test of acme/widgets in a report written by junitReport: class pkg.Widget (unless `extra` names
 * another) in the suite named "suite".
 */
export const widgetsTestId = (
  name: string,
  extra: { classname?: string; parent?: string; filePath?: string } = {},
) => testCaseId(widgets, { classname: "pkg.Widget", parent: "suite", name, ...extra });
export const widgetsTarget = { repo: widgets, org_url_slug: "acme" };

/** The time test-health tests start at. */
export const TEST_HEALTH_START = Date.parse("2026-11-21T12:00:00.000Z");

export interface TestHealthFixture extends ServerFixture {
  /** acme/widgets, recorded without a GitHub App installed. */
  repository: Repository;
}

/**
 * GitHub refuses every request (nock allows no connection and has no interceptor), and the test fails if one was
 * even attempted: test health must never ask GitHub.
 */
export function useUnaskedGitHub(): void {
  const asked: string[] = [];
  // nock tells of every request no interceptor took, the app's own socket's too.
  const onNoMatch = (request: { method?: string; href?: string }) => {
    const address = request.href ?? "";
    if (!address.startsWith("http://127.0.0.1:")) asked.push(`${request.method ?? "?"} ${address}`);
  };
  beforeAll(() => {
    nock.disableNetConnect();
    nock.emitter.on("no match", onNoMatch);
  });
  afterAll(() => {
    nock.emitter.off("no match", onNoMatch);
    nock.enableNetConnect();
  });
  beforeEach(() => {
    asked.length = 0;
    nock.enableNetConnect("127.0.0.1");
  });
  afterEach(() => {
    expect(asked, "requests to GitHub").toEqual([]);
  });
}

/**
 * For each test: a fresh database of `dialect` and app on the clock `clock`, with PUBLIC_URL
 * https://switchyard.example and acme/widgets recorded (no GitHub App installed), and a GitHub that is never asked.
 */
export function useTestHealthServer(dialect: Dialect, clock: () => number): TestHealthFixture {
  useUnaskedGitHub();
  const fixture = useTestServer({
    dialect,
    clock,
    env: { PUBLIC_URL: "https://switchyard.example" },
  }) as TestHealthFixture;
  beforeEach(async () => {
    fixture.repository = await recordWidgets(fixture.store);
  });
  return fixture;
}
