// Helpers for test-health tests: JUnit reports written from a short description, GitHub's answers about a
// repository (default branch, CODEOWNERS) through nock, and the app with a repository to upload results of.
import nock from "nock";
import { afterEach, beforeEach } from "vitest";
import type { UploadInput } from "../../src/health/ingestion.ts";
import { testCaseId } from "../../src/health/test-identity.ts";
import type { Dialect } from "../../src/store/database.ts";
import { newId } from "../../src/store/ids.ts";
import { rememberRepository, type Repository } from "../../src/store/repositories.ts";
import { type ServerFixture, useTestServer } from "./api-server.ts";
import { createTestStore, type TestStore } from "./database.ts";
import { useNockedGitHub } from "./nock-github.ts";

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
  /** acme/widgets, installed as installation 7. */
  repository: Repository;
}

/** Records acme/widgets as installed (installation 7). */
const rememberWidgets = (store: TestStore) =>
  rememberRepository(store.db, { ...widgets, installationId: testInstallationId }, TEST_HEALTH_START);

/** A database of its own for each test, holding acme/widgets. */
export function useTestHealthStore(dialect: Dialect): TestHealthStore {
  const fixture = {} as TestHealthStore;
  beforeEach(async () => {
    fixture.store = await createTestStore(dialect);
    fixture.repository = await rememberWidgets(fixture.store);
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

export const testInstallationId = 7;

/** GitHub's answers for acme/widgets through installation 7; each may be asked at most once per test server. */
export function githubRepository(
  options: { defaultBranch?: string; codeowners?: string | null; owner?: string; name?: string } = {},
) {
  const path = `/repos/${options.owner ?? "acme"}/${options.name ?? "widgets"}`;
  const github = nock("https://api.github.com");
  github
    .post(`/app/installations/${testInstallationId}/access_tokens`)
    .optionally()
    .reply(201, {
      token: "ghs_test",
      expires_at: "2099-01-01T00:00:00Z",
      permissions: {},
      repository_selection: "all",
    })
    .persist();
  github
    .get(path)
    .optionally()
    .reply(200, {
      default_branch: options.defaultBranch ?? "main",
      name: "widgets",
      owner: { login: "acme" },
    });
  const codeowners = options.codeowners === undefined ? null : options.codeowners;
  if (codeowners === null) {
    github.get(`${path}/contents/.github%2FCODEOWNERS`).optionally().reply(404, { message: "Not Found" });
    github.get(`${path}/contents/CODEOWNERS`).optionally().reply(404, { message: "Not Found" });
    github.get(`${path}/contents/docs%2FCODEOWNERS`).optionally().reply(404, { message: "Not Found" });
  } else {
    github.get(`${path}/contents/.github%2FCODEOWNERS`).optionally().reply(200, codeowners);
  }
  return github;
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
  /** acme/widgets, installed (installation testInstallationId). */
  repository: Repository;
}

/**
 * For each test: a fresh database of `dialect` and app on the clock `clock`, with PUBLIC_URL
 * https://switchyard.example, acme/widgets installed, and GitHub reachable only through nock, every interceptor
 * a test sets up being required.
 */
export function useTestHealthServer(dialect: Dialect, clock: () => number): TestHealthFixture {
  useNockedGitHub({ strict: true });
  const fixture = useTestServer({
    dialect,
    clock,
    env: { PUBLIC_URL: "https://switchyard.example" },
  }) as TestHealthFixture;
  beforeEach(async () => {
    fixture.repository = await rememberWidgets(fixture.store);
  });
  return fixture;
}
