// The label a test carries after its uploads (docs/test-health.md#classification), for every kind of mix of passes and failures: none
// failed, all failed, flaky, and a test's first upload. Each row goes through ingestion as CI would send it, one
// upload an hour, and reads the stored status.
import { describe, expect, it } from "vitest";
import type { HealthStatus } from "../../src/test-health/index.ts";
import { ingestUpload } from "../../src/test-health-use-cases/ingestion.ts";
import { findTestCase } from "../../src/store/test-cases.ts";
import { testDialects } from "../support/database.ts";
import {
  junitReport,
  TEST_HEALTH_START,
  uploadInput,
  useTestHealthStore,
  widgetsTestId,
} from "../support/test-health.ts";

const HOUR = 3600 * 1000;
/** main is the default branch, release/1.x a queue's target branch. */
const stableBranches = new Set(["main", "release/1.x"]);

/** One upload of the test: a pass, a failure, or a Surefire report of a test run again after failing. */
type Result = "passed" | "failed" | "failed, then passed on a re-run" | "failed on all 3 re-runs";
interface Upload {
  branch: string;
  commit: string;
  result: Result;
}

const sha = (commit: string) => commit.repeat(40 / commit.length);
const on = (branch: string, commit: string, result: Result): Upload => ({ branch, commit, result });

function report(result: Result): string {
  const testcase = (body: string) =>
    `<testsuite name="suite"><testcase name="t" classname="pkg.Widget">${body}</testcase></testsuite>`;
  switch (result) {
    case "passed":
    case "failed":
      return junitReport([{ name: "t", outcome: result }]);
    case "failed, then passed on a re-run":
      return testcase(`<flakyFailure message="timeout"/>`);
    case "failed on all 3 re-runs":
      return testcase(
        `<failure message="timeout"/><rerunFailure message="timeout"/><rerunFailure message="timeout"/>`,
      );
  }
}

const neverPassed = (failed: number, runs: number) =>
  `failed ${failed} of ${runs} run${runs === 1 ? "" : "s"} in the last 7 days, but never passed on a commit or stable branch where it failed`;

const table: [string, Upload[], { value: HealthStatus; reason: string }][] = [
  [
    "0% failed: healthy",
    [on("main", "1", "passed"), on("feature/x", "2", "passed"), on("release/1.x", "3", "passed")],
    { value: "healthy", reason: "no failures in the last 7 days" },
  ],
  [
    "100% failed on the default branch: broken",
    [on("main", "1", "failed"), on("main", "2", "failed"), on("main", "3", "failed")],
    { value: "broken", reason: "failed the last 3 runs on main, latest on commit 3333333" },
  ],
  [
    "100% failed across the stable branches: broken",
    [
      on("main", "1", "failed"),
      on("release/1.x", "2", "failed"),
      on("main", "3", "failed"),
      on("release/1.x", "4", "failed"),
    ],
    { value: "broken", reason: "failed the last 4 runs on main and release/1.x, latest on commit 4444444" },
  ],
  [
    "100% failed on a release branch while it passes on main: broken",
    [
      on("main", "1", "passed"),
      on("release/1.x", "2", "failed"),
      on("main", "3", "passed"),
      on("release/1.x", "4", "failed"),
      on("release/1.x", "5", "failed"),
    ],
    { value: "broken", reason: "failed the last 3 runs on release/1.x, latest on commit 5555555" },
  ],
  [
    "80% of 5 runs in a day failed: broken",
    [
      on("main", "1", "failed"),
      on("main", "2", "failed"),
      on("main", "3", "passed"),
      on("main", "4", "failed"),
      on("main", "5", "failed"),
    ],
    { value: "broken", reason: "failed 4 of 5 runs on main in the last 24 hours, latest on commit 5555555" },
  ],
  [
    "100% failed on pull request branches only, each on a commit of its own: the branches' changes, not the test",
    [on("feature/a", "1", "failed"), on("feature/b", "2", "failed"), on("feature/c", "3", "failed")],
    { value: "healthy", reason: neverPassed(3, 3) },
  ],
  [
    "failed and passed on one commit (a re-run of the job): flaky",
    [on("feature/x", "1", "failed"), on("feature/x", "1", "passed")],
    { value: "flaky", reason: "failed and passed on commit 1111111 on feature/x on 2026-11-21" },
  ],
  [
    "failed and passed on the default branch: flaky",
    [on("main", "1", "failed"), on("main", "2", "passed"), on("main", "3", "passed")],
    { value: "flaky", reason: "failed 1 of 3 runs on main in the last 7 days, latest on commit 1111111" },
  ],
  [
    "flaky, then failing on every stable branch: broken",
    [
      on("main", "1", "failed"),
      on("main", "1", "passed"),
      on("main", "2", "failed"),
      on("release/1.x", "3", "failed"),
      on("main", "4", "failed"),
    ],
    { value: "broken", reason: "failed the last 3 runs on main and release/1.x, latest on commit 4444444" },
  ],
  [
    "new, failed its first run: not yet broken",
    [on("main", "1", "failed")],
    { value: "healthy", reason: neverPassed(1, 1) },
  ],
  [
    "new, failed then passed on a re-run in its first upload: flaky",
    [on("feature/x", "1", "failed, then passed on a re-run")],
    { value: "flaky", reason: "failed and passed on commit 1111111 on feature/x on 2026-11-21" },
  ],
  [
    "new, failed all 3 re-runs of its first upload on the default branch: broken",
    [on("main", "1", "failed on all 3 re-runs")],
    { value: "broken", reason: "failed the last 3 runs on main, latest on commit 1111111" },
  ],
];

describe.each(testDialects)("health labels on %s", (dialect) => {
  const fixture = useTestHealthStore(dialect);

  it.each(table)("%s", async (_name, uploads, expected) => {
    let now = TEST_HEALTH_START;
    for (const { branch, commit, result } of uploads) {
      now += HOUR;
      await ingestUpload(
        fixture.store,
        uploadInput(fixture.repository, now, [report(result)], {
          branch,
          commitSha: sha(commit),
          stableBranches,
        }),
      );
    }
    const test = await findTestCase(fixture.store.db, fixture.repository.id, widgetsTestId("t"));
    expect({ value: test?.status, reason: test?.statusReason }).toEqual(expected);
  });
});
