import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  classifyTest,
  healthyWithoutFailures,
  isQuarantined,
  stableBranchesOf,
  type HealthStatus,
  type QuarantineSetting,
  type TestRun,
} from "../../src/test-health/classification.ts";

const now = new Date("2026-11-21T12:00:00.000Z");
const stableBranches = new Set(["main", "release/1.x"]);
const HOUR = 3600 * 1000;

// A run `hoursAgo` before now; commits default to one per run so that no two runs share one by accident.
let commitCounter = 0;
function aRun(
  outcome: TestRun["outcome"],
  options: { branch?: string; commit?: string; hoursAgo?: number } = {},
): TestRun {
  commitCounter++;
  return {
    outcome,
    branch: options.branch ?? "main",
    commitSha: options.commit ?? `c0ffee${commitCounter.toString(16).padStart(34, "0")}`,
    timestamp: new Date(now.getTime() - (options.hoursAgo ?? 1) * HOUR),
  };
}

// Runs one hour apart, the last one an hour ago.
function history(
  outcomes: TestRun["outcome"][],
  options: { branch?: string; startHoursAgo?: number } = {},
): TestRun[] {
  const start = options.startHoursAgo ?? outcomes.length;
  return outcomes.map((outcome, index) => aRun(outcome, { branch: options.branch, hoursAgo: start - index }));
}

const classify = (runs: TestRun[]) => classifyTest(runs, { stableBranches, now });

describe("classification", () => {
  it("is healthy with no runs", () => {
    expect(classify([])).toEqual({ value: "healthy", reason: "no failures in the last 7 days" });
  });

  it("is healthy when every run passed, with a sentence that stays true as the window slides", () => {
    expect(classify(history(["passed", "passed", "passed"]))).toEqual(healthyWithoutFailures);
    expect(healthyWithoutFailures).toEqual({ value: "healthy", reason: "no failures in the last 7 days" });
  });

  it("is broken when the last 3 runs on a stable branch failed", () => {
    expect(classify(history(["passed", "failed", "failed", "failed"]))).toEqual({
      value: "broken",
      reason: "failed the last 3 runs on main, latest on commit c0ffee0",
    });
  });

  it("names the whole streak of failures in the reason", () => {
    expect(classify(history(["failed", "failed", "failed", "failed"])).reason).toBe(
      "failed the last 4 runs on main, latest on commit c0ffee0",
    );
  });

  it("is not broken after two failures in a row", () => {
    expect(classify(history(["failed", "failed"])).value).toBe("healthy");
  });

  it("is not broken when a pass ended the streak", () => {
    expect(classify(history(["failed", "failed", "failed", "passed"])).value).toBe("flaky");
  });

  it("counts a streak over the stable branches together: a test failing on each of them is broken", () => {
    const runs = [
      aRun("failed", { branch: "main", hoursAgo: 4 }),
      aRun("failed", { branch: "release/1.x", hoursAgo: 3 }),
      aRun("failed", { branch: "main", hoursAgo: 2 }),
    ];
    expect(classify(runs)).toEqual({
      value: "broken",
      reason: "failed the last 3 runs on main and release/1.x, latest on commit c0ffee0",
    });
  });

  it("counts a streak on one stable branch too: a test broken on a release branch while it passes on main", () => {
    const runs = [0, 1, 2].flatMap((index) => [
      aRun("passed", { branch: "main", hoursAgo: 10 - 2 * index }),
      aRun("failed", { branch: "release/1.x", hoursAgo: 9 - 2 * index }),
    ]);
    expect(classify(runs)).toEqual({
      value: "broken",
      reason: "failed the last 3 runs on release/1.x, latest on commit c0ffee0",
    });
  });

  it("names the longest streak", () => {
    const runs = [
      ...history(["failed", "failed", "failed"], { branch: "main", startHoursAgo: 10 }),
      ...history(["failed", "failed", "failed", "failed"], { branch: "release/1.x", startHoursAgo: 6 }),
    ];
    expect(classify(runs).reason).toBe(
      "failed the last 7 runs on main and release/1.x, latest on commit c0ffee0",
    );
    const afterPass = [...runs, aRun("passed", { branch: "main", hoursAgo: 2 })];
    expect(classify(afterPass).reason).toBe(
      "failed the last 4 runs on release/1.x, latest on commit c0ffee0",
    );
  });

  it("names the commit of the latest failure each rule counted", () => {
    const on = (outcome: TestRun["outcome"], commit: string, hoursAgo: number, branch = "main") =>
      aRun(outcome, { commit: commit.repeat(40), hoursAgo, branch });
    expect(classify([on("failed", "1", 30), on("failed", "2", 29), on("failed", "3", 28)]).reason).toBe(
      "failed the last 3 runs on main, latest on commit 3333333",
    );
    const recent = ["failed", "failed", "passed", "failed", "failed"] as const;
    expect(classify(recent.map((outcome, index) => on(outcome, String(index + 4), 5 - index))).reason).toBe(
      "failed 4 of 5 runs on main in the last 24 hours, latest on commit 8888888",
    );
    expect(classify([on("passed", "a", 30), on("failed", "b", 29), on("passed", "c", 28)]).reason).toBe(
      "failed 1 of 3 runs on main in the last 7 days, latest on commit bbbbbbb",
    );
    expect(
      classify([on("failed", "d", 3, "release/1.x"), on("failed", "", 2), on("failed", "", 1)]).reason,
    ).toBe("failed the last 3 runs on main and release/1.x");
  });

  it("does not count failures on other branches toward broken", () => {
    expect(classify(history(["failed", "failed", "failed", "failed"], { branch: "feature/x" })).value).toBe(
      "healthy",
    );
  });

  it("is broken when at least 80% of at least 5 runs on stable branches in the last 24 hours failed", () => {
    expect(classify(history(["failed", "failed", "passed", "failed", "failed"]))).toEqual({
      value: "broken",
      reason: "failed 4 of 5 runs on main in the last 24 hours, latest on commit c0ffee0",
    });
  });

  it("counts exactly 80% as broken under the 24-hour rule", () => {
    const outcomes: TestRun["outcome"][] = [
      ...Array<"failed">(12).fill("failed"),
      "passed",
      "passed",
      "passed",
    ];
    expect(classify(history(outcomes)).reason).toBe(
      "failed 12 of 15 runs on main in the last 24 hours, latest on commit c0ffee0",
    );
  });

  it("pools the stable branches for the 24-hour rule", () => {
    const runs = [
      aRun("failed", { branch: "main", hoursAgo: 6 }),
      aRun("failed", { branch: "release/1.x", hoursAgo: 5 }),
      aRun("passed", { branch: "main", hoursAgo: 4 }),
      aRun("failed", { branch: "release/1.x", hoursAgo: 3 }),
      aRun("failed", { branch: "main", hoursAgo: 2 }),
    ];
    expect(classify(runs).reason).toBe(
      "failed 4 of 5 runs on main and release/1.x in the last 24 hours, latest on commit c0ffee0",
    );
  });

  it("needs at least 5 runs for the 24-hour rule", () => {
    const runs = [aRun("failed", { branch: "main", hoursAgo: 2 }), aRun("failed", { branch: "release/1.x" })];
    expect(classify(runs).value).toBe("healthy");
  });

  it("is not broken by the 24-hour rule below 80% failures", () => {
    expect(classify(history(["failed", "failed", "passed", "failed", "passed", "failed"])).value).toBe(
      "flaky",
    );
  });

  it("leaves runs older than 24 hours out of the 24-hour rule", () => {
    const runs = [
      ...history(["passed", "passed", "passed", "passed"], { startHoursAgo: 30 }),
      ...history(["failed", "failed", "passed", "failed", "failed"], { startHoursAgo: 5 }),
    ];
    expect(classify(runs).value).toBe("broken");
  });

  it("is flaky when a test failed and passed on the same commit", () => {
    const runs = [
      aRun("failed", { branch: "feature/x", commit: "1a2b3c4d5e6f7a8b9c0d", hoursAgo: 30 }),
      aRun("passed", { branch: "feature/x", commit: "1a2b3c4d5e6f7a8b9c0d", hoursAgo: 29 }),
    ];
    expect(classify(runs)).toEqual({
      value: "flaky",
      reason: "failed and passed on commit 1a2b3c4 on feature/x on 2026-11-20",
    });
  });

  it("is flaky when a commit failed on one branch and passed on another", () => {
    const runs = [
      aRun("failed", { branch: "mq/main/42", commit: "abcdef0123456789", hoursAgo: 2 }),
      aRun("passed", { branch: "feature/x", commit: "abcdef0123456789", hoursAgo: 1 }),
    ];
    expect(classify(runs).reason).toBe(
      "failed and passed on commit abcdef0 (failed on mq/main/42, passed on feature/x) on 2026-11-21",
    );
  });

  it("is flaky when a re-run within one upload passed after a failure", () => {
    const timestamp = new Date(now.getTime() - HOUR);
    const runs: TestRun[] = [
      { outcome: "failed", branch: "main", commitSha: "feedface00", timestamp },
      { outcome: "failed", branch: "main", commitSha: "feedface00", timestamp },
      { outcome: "failed", branch: "main", commitSha: "feedface00", timestamp },
      { outcome: "passed", branch: "main", commitSha: "feedface00", timestamp },
    ];
    expect(classify(runs)).toEqual({
      value: "flaky",
      reason: "failed and passed on commit feedfac on main on 2026-11-21",
    });
  });

  it("names the most recent commit that failed and passed", () => {
    const runs = [
      aRun("failed", { branch: "feature/a", commit: "aaaaaaa1", hoursAgo: 50 }),
      aRun("passed", { branch: "feature/a", commit: "aaaaaaa1", hoursAgo: 49 }),
      aRun("failed", { branch: "feature/b", commit: "bbbbbbb2", hoursAgo: 3 }),
      aRun("passed", { branch: "feature/b", commit: "bbbbbbb2", hoursAgo: 2 }),
    ];
    expect(classify(runs).reason).toContain("commit bbbbbbb");
  });

  it("is flaky when a stable branch has both a failure and a pass on different commits", () => {
    expect(classify(history(["passed", "failed", "passed"]))).toEqual({
      value: "flaky",
      reason: "failed 1 of 3 runs on main in the last 7 days, latest on commit c0ffee0",
    });
  });

  it("is healthy when a failure and a pass happened on different commits of a branch that is not stable", () => {
    expect(classify(history(["failed", "passed"], { branch: "feature/x" }))).toEqual({
      value: "healthy",
      reason:
        "failed 1 of 2 runs in the last 7 days, but never passed on a commit or stable branch where it failed",
    });
  });

  it("reports broken rather than flaky when both apply", () => {
    expect(classify(history(["failed", "passed", "failed", "failed", "failed"])).value).toBe("broken");
  });

  it("ignores skipped runs", () => {
    expect(classify(history(["failed", "skipped", "failed", "skipped", "failed"]))).toEqual({
      value: "broken",
      reason: "failed the last 3 runs on main, latest on commit c0ffee0",
    });
  });

  it("ignores runs older than 7 days", () => {
    const runs = history(["failed", "passed", "failed", "failed", "failed"], { startHoursAgo: 7 * 24 + 10 });
    expect(classify(runs)).toEqual(healthyWithoutFailures);
  });

  it("returns to healthy once the flaky evidence has left the window", () => {
    const runs = [
      aRun("failed", { commit: "1234567890", hoursAgo: 8 * 24 }),
      aRun("passed", { commit: "1234567890", hoursAgo: 8 * 24 - 1 }),
      aRun("passed", { hoursAgo: 1 }),
    ];
    expect(classify(runs)).toEqual(healthyWithoutFailures);
  });

  it("counts runs stamped slightly after now", () => {
    expect(classify(history(["failed", "failed", "failed"], { startHoursAgo: -1 })).value).toBe("broken");
  });

  it("orders runs by time whatever order they are given in", () => {
    const runs = history(["failed", "failed", "failed", "passed"]);
    expect(classify([...runs].reverse())).toEqual(classify(runs));
  });

  it("keeps the given order of runs with the same timestamp", () => {
    const timestamp = new Date(now.getTime() - HOUR);
    const run = (outcome: TestRun["outcome"], commitSha: string): TestRun => ({
      outcome,
      branch: "main",
      commitSha,
      timestamp,
    });
    expect(
      classify([run("passed", "a1"), run("failed", "b2"), run("failed", "c3"), run("failed", "d4")]).value,
    ).toBe("broken");
    expect(
      classify([run("failed", "b2"), run("failed", "c3"), run("failed", "d4"), run("passed", "a1")]).value,
    ).toBe("flaky");
  });

  describe("invariants", () => {
    const runArbitrary = fc.record({
      // Failures weigh more, so that broken tests are drawn often enough.
      outcome: fc.oneof(
        { arbitrary: fc.constant<TestRun["outcome"]>("failed"), weight: 4 },
        { arbitrary: fc.constant<TestRun["outcome"]>("passed"), weight: 2 },
        { arbitrary: fc.constant<TestRun["outcome"]>("skipped"), weight: 1 },
      ),
      branch: fc.constantFrom("main", "release/1.x", "feature/x", "mq/main/7"),
      commitSha: fc.constantFrom("aaaaaaaa", "bbbbbbbb", "cccccccc", "dddddddd"),
      // Runs spread over nine days, half of them in the last 30 hours so that the 24-hour rule gets exercised.
      minutesAgo: fc.oneof(
        fc.integer({ min: -30, max: 30 * 60 }),
        fc.integer({ min: -30, max: 9 * 24 * 60 }),
      ),
    });
    const runsArbitrary = fc
      .uniqueArray(runArbitrary, { selector: (run) => run.minutesAgo, maxLength: 40 })
      .map((runs) =>
        runs.map(({ minutesAgo, ...run }) => ({
          ...run,
          timestamp: new Date(now.getTime() - minutesAgo * 60_000),
        })),
      );

    it("agrees with a plain reading of the rules", () => {
      // The rules of docs/test-health.md#classification written as directly as possible, without the single pass.
      function byTheRules(runs: TestRun[]): HealthStatus {
        const considered = runs
          .filter(
            (run) => run.outcome !== "skipped" && run.timestamp.getTime() >= now.getTime() - 7 * 24 * HOUR,
          )
          .sort((a, b) => a.timestamp.getTime() - b.timestamp.getTime());
        const stable = considered.filter((run) => stableBranches.has(run.branch));
        const endsInFailures = (group: TestRun[]) => {
          const outcomes = group.map((run) => run.outcome);
          return outcomes.length - outcomes.lastIndexOf("passed") - 1 >= 3;
        };
        if (endsInFailures(stable)) return "broken";
        for (const branch of stableBranches) {
          if (endsInFailures(stable.filter((run) => run.branch === branch))) return "broken";
        }
        const recent = stable.filter((run) => run.timestamp.getTime() >= now.getTime() - 24 * HOUR);
        const recentFailures = recent.filter((run) => run.outcome === "failed").length;
        if (recent.length >= 5 && recentFailures / recent.length >= 0.8 - 1e-9) return "broken";
        const hasBoth = (group: TestRun[]) =>
          group.some((run) => run.outcome === "failed") && group.some((run) => run.outcome === "passed");
        const shas = new Set(considered.map((run) => run.commitSha));
        if ([...shas].some((sha) => hasBoth(considered.filter((run) => run.commitSha === sha))))
          return "flaky";
        if ([...stableBranches].some((branch) => hasBoth(stable.filter((run) => run.branch === branch))))
          return "flaky";
        return "healthy";
      }
      fc.assert(
        fc.property(runsArbitrary, (runs) => {
          expect(classify(runs).value).toBe(byTheRules(runs));
        }),
        { numRuns: 500 },
      );
    });

    it("does not depend on the order runs are given in", () => {
      fc.assert(
        fc.property(runsArbitrary, fc.func(fc.integer()), (runs, order) => {
          const shuffled = [...runs].sort((a, b) => order(a) - order(b));
          expect(classify(shuffled)).toEqual(classify(runs));
        }),
      );
    });

    it("is not changed by skipped runs", () => {
      fc.assert(
        fc.property(runsArbitrary, (runs) => {
          expect(classify(runs.filter((run) => run.outcome !== "skipped"))).toEqual(classify(runs));
        }),
      );
    });

    it("is healthy whenever nothing failed", () => {
      fc.assert(
        fc.property(runsArbitrary, (runs) => {
          expect(classify(runs.map((run) => ({ ...run, outcome: "passed" as const }))).value).toBe("healthy");
        }),
      );
    });

    it("is broken only when a run on a stable branch failed in the window", () => {
      fc.assert(
        fc.property(runsArbitrary, (runs) => {
          const windowStart = now.getTime() - 7 * 24 * HOUR;
          const stableFailure = runs.some(
            (run) =>
              run.outcome === "failed" &&
              stableBranches.has(run.branch) &&
              run.timestamp.getTime() >= windowStart,
          );
          if (classify(runs).value === "broken") expect(stableFailure).toBe(true);
        }),
      );
    });

    it("is not changed by failures on other branches, each on a commit of its own", () => {
      fc.assert(
        fc.property(
          runsArbitrary,
          fc.array(fc.integer({ min: 0, max: 7 * 24 * 60 }), { maxLength: 10 }),
          (runs, extra) => {
            const noise = extra.map((minutesAgo, index): TestRun => ({
              outcome: "failed",
              branch: "feature/noise",
              commitSha: `noise-${index}`,
              timestamp: new Date(now.getTime() - minutesAgo * 60_000 - 1),
            }));
            const before = classify(runs).value;
            const after = classify([...runs, ...noise]).value;
            expect(after).toBe(before);
          },
        ),
      );
    });

    it("always gives a one-sentence reason", () => {
      fc.assert(
        fc.property(runsArbitrary, (runs) => {
          const { reason } = classify(runs);
          expect(reason).toMatch(/^[a-z][^\n]*[^.\s]$/);
        }),
      );
    });
  });
});

describe("stable branches", () => {
  it("are the default branch and the queues' target branches", () => {
    expect(stableBranchesOf("trunk", ["release/2.x"])).toEqual(new Set(["trunk", "release/2.x"]));
  });

  it("fall back to main while the default branch is unknown", () => {
    expect(stableBranchesOf(null, [])).toEqual(new Set(["main"]));
  });
});

describe("quarantine", () => {
  const cases: [QuarantineSetting, boolean, HealthStatus, boolean][] = [
    ["always", false, "healthy", true],
    ["always", true, "broken", true],
    ["never", true, "flaky", false],
    ["auto", true, "flaky", true],
    ["auto", false, "flaky", false],
    ["auto", true, "broken", false],
    ["auto", true, "healthy", false],
  ];
  it.each(cases)(
    "setting %s with auto-quarantine %s and a %s test: quarantined %s",
    (setting, autoQuarantine, status, expected) => {
      expect(isQuarantined({ setting, autoQuarantine, status })).toBe(expected);
    },
  );
});
