import { describe, expect, it } from "vitest";
import {
  MAX_SUMMARY_CHARS,
  normalizeSummary,
  summarizeFailure,
} from "../../src/test-health/failure-summary.ts";
import { fixture, parseAll } from "../test-reports/junit-helpers.ts";

describe("failure summary", () => {
  it("is the first line of the message", () => {
    expect(
      summarizeFailure({ kind: "failure", message: "widget mismatch\nsecond line", text: "trace" }),
    ).toBe("widget mismatch");
  });

  it("skips blank lines at the start of the message", () => {
    expect(summarizeFailure({ kind: "failure", message: "\n  \nreal message", text: "" })).toBe(
      "real message",
    );
  });

  it("falls back to the first line of the text when the message is blank", () => {
    expect(summarizeFailure({ kind: "failure", message: "  ", text: "\nError: boom\n  at x.ts" })).toBe(
      "Error: boom",
    );
  });

  it("falls back to the element's name when both are blank", () => {
    expect(summarizeFailure({ kind: "error", message: "", text: " \n " })).toBe("error");
  });

  it("normalises numbers", () => {
    expect(normalizeSummary("expected 6 to be 7 after 1.5s on port 5432")).toBe(
      "expected <n> to be <n> after <n>s on port <n>",
    );
  });

  it("normalises 0x-prefixed hex values", () => {
    expect(normalizeSummary("segfault at 0x7f99dc429f10, code 0xCAFEBABE")).toBe(
      "segfault at <hex>, code <hex>",
    );
  });

  it("normalises long hex strings such as commit SHAs", () => {
    expect(normalizeSummary("object 1a2b3c4d5e6f not found")).toBe("object <hex> not found");
  });

  it("normalises UUIDs", () => {
    expect(normalizeSummary("coupon 7F3E9C2A-5b1d-4e8f-9a6b-0c2d4e6f8a1b not applied")).toBe(
      "coupon <uuid> not applied",
    );
  });

  it("keeps words made of hex letters and digits inside identifiers", () => {
    expect(normalizeSummary("deadbeef decoded as utf8 by Test2")).toBe("deadbeef decoded as utf8 by Test2");
  });

  it("collapses whitespace and trims", () => {
    expect(normalizeSummary("  expected:\t<a>   but was:  <b>  ")).toBe("expected: <a> but was: <b>");
  });

  it("is bounded in length", () => {
    const summary = normalizeSummary(`Error: ${"word ".repeat(200)}`);
    expect(summary).toHaveLength(MAX_SUMMARY_CHARS);
    expect(summary.endsWith("…")).toBe(true);
  });

  it("never ends with half of a surrogate pair", () => {
    const summary = normalizeSummary("😀".repeat(150));
    expect(summary).toBe(`${"😀".repeat(99)}…`);
  });

  it("is the same for failures that differ only in volatile values", () => {
    const first = summarizeFailure({
      kind: "failure",
      message: "timeout after 1503 ms waiting for 10.0.0.7:5432",
      text: "",
    });
    const second = summarizeFailure({
      kind: "failure",
      message: "timeout after 998 ms waiting for 10.0.0.9:5433",
      text: "",
    });
    expect(first).toBe(second);
  });

  it("summarises real reports", async () => {
    const summaries = async (name: string): Promise<string[]> =>
      (await parseAll(fixture(name))).flatMap((testCase) =>
        testCase.failure ? [summarizeFailure(testCase.failure)] : [],
      );
    expect(await summaries("surefire-rerun.xml")).toEqual(["widget count mismatch", "boom <hex>"]);
    expect(await summaries("jest-junit.xml")).toEqual([
      "Error: expect(received).toBe(expected) // Object.is equality",
      "Error: expect(received).toThrow(expected)",
      "● Test suite failed to run",
      "● Test suite failed to run",
    ]);
    expect(await summaries("gradle.xml")).toEqual([
      "java.lang.IllegalStateException: no coupon code",
      "java.lang.AssertionError: total with tax",
    ]);
    expect(await summaries("phpunit-nested.xml")).toEqual([
      "RuntimeException: inventory service unreachable",
      "Failed asserting that <n> is identical to <n>.",
      "total with tax",
      'InvalidArgumentException: not a price: "twelve"',
    ]);
    expect(await summaries("go-junit-report.xml")).toEqual(["Failed", "Failed", "Build error"]);
  });
});
