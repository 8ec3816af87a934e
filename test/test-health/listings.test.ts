import { describe, expect, it } from "vitest";
import type { TestCase } from "../../src/test-health/test-case.ts";
import {
  failureCountKey,
  forward,
  isFailureCountKey,
  isQuarantineKey,
  isStatusChangeKey,
  pageOf,
  type PagePosition,
  quarantineKey,
  statusChangeKey,
} from "../../src/test-health/listings.ts";

const testCase = (overrides: Partial<TestCase>): TestCase => ({
  id: "00000000-0000-5000-8000-000000000000",
  repositoryId: "repo",
  name: "adds",
  classname: "math",
  parent: "",
  filePath: "",
  variant: "",
  status: "flaky",
  statusReason: "",
  statusChangedAt: 1_000,
  quarantineSetting: "auto",
  quarantined: false,
  quarantinedAt: null,
  settled: false,
  key: 7,
  firstSeenAt: 0,
  ...overrides,
});

describe("a listing's pages", () => {
  it.each<[string, PagePosition<number>, boolean]>([
    ["the first page", { kind: "first" }, true],
    ["the page after a key", { kind: "after", key: 1 }, true],
    ["the last page", { kind: "last" }, false],
    ["the page before a key", { kind: "before", key: 1 }, false],
  ])("read %s in listing order: %s", (_name, position, inOrder) => {
    expect(forward(position)).toBe(inOrder);
  });

  it.each<[string, number[], PagePosition<number>, { rows: number[]; more: boolean }]>([
    [
      "one row more than the limit says there are more",
      [1, 2, 3],
      { kind: "first" },
      { rows: [1, 2], more: true },
    ],
    [
      "as many rows as the limit say there are no more",
      [1, 2],
      { kind: "after", key: 0 },
      { rows: [1, 2], more: false },
    ],
    [
      "a page read backwards is put in listing order",
      [3, 2, 1],
      { kind: "before", key: 4 },
      { rows: [2, 3], more: true },
    ],
    ["the last page, short, is in listing order", [2, 1], { kind: "last" }, { rows: [1, 2], more: false }],
    ["no rows", [], { kind: "first" }, { rows: [], more: false }],
  ])("%s", (_name, rows, position, page) => {
    expect(pageOf(rows, 2, position)).toEqual(page);
  });
});

describe("the sort keys of the listings", () => {
  it.each([
    [
      "flaky or broken: the status change, then the key",
      statusChangeKey(testCase({ statusChangedAt: 5 })),
      [5, 7],
    ],
    ["quarantined: when it was quarantined", quarantineKey(testCase({ quarantinedAt: 9 })), [9, 7]],
    ["quarantined, never dated: 0", quarantineKey(testCase({ quarantinedAt: null })), [0, 7]],
    [
      "failing: the failures, the name, the key",
      failureCountKey({ testCase: testCase({ name: "divides" }), failures: 3 }),
      [3, "divides", 7],
    ],
  ])("%s", (_name, key, expected) => {
    expect(key).toEqual(expected);
  });

  it.each<[unknown, boolean, boolean]>([
    [[5, 7], true, false],
    [[5, 1.5], false, false],
    [[5], false, false],
    ["5,7", false, false],
    [[3, "divides", 7], false, true],
    [[3, 4, 7], false, false],
    [[3, "divides"], false, false],
  ])(
    "a page token's key %j: a status-change or quarantine key %s, a failure-count key %s",
    (key, pair, count) => {
      expect(isStatusChangeKey(key)).toBe(pair);
      expect(isQuarantineKey(key)).toBe(pair);
      expect(isFailureCountKey(key)).toBe(count);
    },
  );
});
