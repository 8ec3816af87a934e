import { describe, expect, it } from "vitest";
import type { SimulationModel } from "../../src/simulator/model.ts";
import { parsePolicies, parsePolicy, PolicySpecError } from "../../src/simulator/policy-spec.ts";
import { formatComparison } from "../../src/simulator/report.ts";
import { compare } from "../../src/simulator/simulate.ts";
import { typicalDay } from "./days.ts";
import { testsOnTheBareTarget } from "./wrong-queue.ts";

/** A short typical day: enough PRs to tell policies apart, quick to play. */
const shortTypicalDay: SimulationModel = { ...typicalDay, hours: 6 };

describe("a comparison of policies", () => {
  const policies = parsePolicies("k=4;k=8,d=2,optimistic");

  it("gives the same table for the same seed, and another for another seed", () => {
    const first = formatComparison(compare({ model: shortTypicalDay, policies, seed: 5, days: 2 }));
    expect(formatComparison(compare({ model: shortTypicalDay, policies, seed: 5, days: 2 }))).toBe(first);
    expect(formatComparison(compare({ model: shortTypicalDay, policies, seed: 6, days: 2 }))).not.toBe(first);
  });

  it("lists an oracle per slot count, then serial, then the policies, each against its oracle", () => {
    const { results, seeds } = compare({ model: shortTypicalDay, policies, seed: 3, days: 3 });
    expect(seeds).toEqual([3, 4, 5]);
    expect(results.map((result) => result.label)).toEqual([
      "oracle k=1",
      "oracle k=4",
      "oracle k=8",
      "serial",
      "k=4",
      "k=8,d=2,optimistic",
    ]);
    for (const result of results.slice(0, 3)) expect(result.ofOracle).toBe(1);
    const oracle8 = results[2]?.figures.mergedPerHour ?? 0;
    expect(results[5]?.ofOracle).toBeCloseTo((results[5]?.figures.mergedPerHour ?? 0) / oracle8);
    for (const result of results) {
      expect(result.figures.brokenMerged).toBe(0);
      expect(result.violations).toEqual([]);
    }
  });

  it("names the policy and seed of every merge that no passed run tested", () => {
    const comparison = compare({
      model: shortTypicalDay,
      policies: [parsePolicy("k=4")],
      seed: 1,
      days: 2,
      step: testsOnTheBareTarget,
    });
    const result = comparison.results.at(-1);
    expect(result?.figures.violations).toBeGreaterThan(0);
    expect(result?.violations[0]).toMatch(/^k=4, seed [12]: /);
    expect(formatComparison(comparison)).toMatch(/untested merges/);
  });
});

describe("policies written as settings", () => {
  it("reads short and long names, bare flags and batch sizes on top of a base", () => {
    expect(
      parsePolicies("k=4;k=8,d=2,optimistic;k=8,batch=4", { settings: { testingTimeoutMinutes: 60 } }),
    ).toEqual([
      { label: "k=4", settings: { testingTimeoutMinutes: 60, concurrency: 4 } },
      {
        label: "k=8,d=2,optimistic",
        settings: {
          testingTimeoutMinutes: 60,
          concurrency: 8,
          pendingFailureDepth: 2,
          canOptimisticallyMerge: true,
        },
      },
      {
        label: "k=8,batch=4",
        settings: { testingTimeoutMinutes: 60, concurrency: 8, batch: true, batchingMinSize: 4 },
      },
    ]);
    expect(parsePolicy("concurrency=2,bisection=3,skip-redundant-tests,method=squash").settings).toEqual({
      concurrency: 2,
      bisectionConcurrency: 3,
      optimizationMode: "bisection_skip_redundant_tests",
      mergeMethod: "squash",
    });
  });

  it.each([
    ["k=0", /in "k=0": k needs a whole number of at least 1, got 0/],
    ["k=8,speed=2", /speed is not a setting/],
    ["k=4;", /an empty policy/],
    ["optimistic=yes", /optimistic is true or false, got yes/],
    ["method=fast", /method is one of merge_commit, squash, rebase/],
  ])("refuses %s", (text, message) => {
    expect(() => parsePolicies(text)).toThrow(PolicySpecError);
    expect(() => parsePolicies(text)).toThrow(message);
  });
});
