import { describe, expect, it } from "vitest";
import { byName, fixture, parseAll } from "./junit-helpers.ts";

describe("Vitest junit reporter (real output of vitest 4)", () => {
  it("reads every test case with its suite, classname and duration", async () => {
    const testCases = await parseAll(fixture("vitest-4.xml"));
    expect(testCases.map((testCase) => [testCase.name, testCase.outcome])).toEqual([
      ["math > adds numbers", "passed"],
      ["math > multiplies numbers", "failed"],
      ["math > divides by zero", "skipped"],
      ["math > nested > throws a multi-line error", "failed"],
      ["top-level test passes", "passed"],
    ]);
    expect(testCases[0]).toMatchObject({
      classname: "src/math.test.ts",
      parent: "src/math.test.ts",
      filePath: "",
      durationMs: 1.298,
    });
  });

  it("keeps the failure's message, type and multi-line text", async () => {
    const failed = byName(await parseAll(fixture("vitest-4.xml")), "math > multiplies numbers");
    expect(failed.failure).toMatchObject({
      kind: "failure",
      message: "expected 6 to be 7 // Object.is equality",
      type: "AssertionError",
    });
    expect(failed.failure?.text).toMatch(
      /^AssertionError: expected 6 to be 7 \/\/ Object.is equality\n\n- Expected\n/,
    );
    expect(failed.attempts).toEqual([{ outcome: "failed", failure: failed.failure }]);
  });

  it("reads a literal newline inside an attribute as a space, as XML attribute normalisation requires", async () => {
    const failed = byName(
      await parseAll(fixture("vitest-4.xml")),
      "math > nested > throws a multi-line error",
    );
    expect(failed.failure?.message).toBe('first line second line <with> & special "chars"');
    expect(failed.failure?.text).toContain('Error: first line\nsecond line <with> & special "chars"\n');
  });
});

describe("pytest --junitxml (real output of pytest 9)", () => {
  it("reads the file attribute of the xunit1 family as the file path", async () => {
    const testCases = await parseAll(fixture("pytest-xunit1.xml"));
    expect(byName(testCases, "test_passes")).toMatchObject({
      classname: "tests.test_sample",
      parent: "pytest",
      filePath: "tests/test_sample.py",
      outcome: "passed",
    });
  });

  it("leaves the file path empty for the xunit2 family, which has no file attribute", async () => {
    const testCases = await parseAll(fixture("pytest-xunit2.xml"));
    expect(testCases.every((testCase) => testCase.filePath === "")).toBe(true);
  });

  it("keeps a multi-line message written with character references intact", async () => {
    const failed = byName(await parseAll(fixture("pytest-xunit2.xml")), "test_fails");
    expect(failed.failure?.message).toBe(
      "AssertionError: id mismatch\n  second line of the message\nassert 42 == 43",
    );
  });

  it("counts an error in a fixture as a failure of kind error", async () => {
    const errored = byName(await parseAll(fixture("pytest-xunit2.xml")), "test_errors_in_setup");
    expect(errored.outcome).toBe("failed");
    expect(errored.failure).toMatchObject({
      kind: "error",
      message: 'failed on setup with "RuntimeError: fixture exploded at 0xdeadbeef"',
    });
  });

  it("reads skip and xfail as skipped", async () => {
    const testCases = await parseAll(fixture("pytest-xunit2.xml"));
    expect(byName(testCases, "test_skipped").outcome).toBe("skipped");
    expect(byName(testCases, "test_xfail").outcome).toBe("skipped");
  });

  it("reports a failure followed by a teardown error as the two test cases pytest writes", async () => {
    const testCases = await parseAll(fixture("pytest-xunit2.xml"));
    const both = testCases.filter((testCase) => testCase.name === "test_fails_and_errors_in_teardown");
    expect(both.map((testCase) => testCase.failure?.kind)).toEqual(["failure", "error"]);
  });
});

describe("Maven Surefire (real output of surefire 3.2.5 with rerunFailingTestsCount=2)", () => {
  it("reads a bare <testsuite> root", async () => {
    const testCases = await parseAll(fixture("surefire-rerun.xml"));
    expect(testCases).toHaveLength(6);
    expect(testCases.every((testCase) => testCase.parent === "com.acme.widgets.WidgetTest")).toBe(true);
  });

  it("reports a flakyFailure as a failed attempt followed by a passed one", async () => {
    const flaky = byName(await parseAll(fixture("surefire-rerun.xml")), "flakyFailsOnce");
    expect(flaky.outcome).toBe("passed");
    expect(flaky.failure).toBeNull();
    expect(flaky.attempts.map((attempt) => attempt.outcome)).toEqual(["failed", "passed"]);
    expect(flaky.attempts[0]?.failure).toMatchObject({
      kind: "failure",
      message: "first attempt fails ==> expected: <1> but was: <0>",
      type: "org.opentest4j.AssertionFailedError",
    });
  });

  it("reads the stack trace nested in a flaky element as its text", async () => {
    const flaky = byName(await parseAll(fixture("surefire-rerun.xml")), "flakyFailsOnce");
    expect(flaky.attempts[0]?.failure?.text).toMatch(
      /^org\.opentest4j\.AssertionFailedError: first attempt fails ==> expected: <1> but was: <0>\n\tat /,
    );
  });

  it("reports a flakyError as an errored attempt followed by a passed one", async () => {
    const flaky = byName(await parseAll(fixture("surefire-rerun.xml")), "flakyErrorsOnce");
    expect(flaky.attempts.map((attempt) => [attempt.outcome, attempt.failure?.kind])).toEqual([
      ["failed", "error"],
      ["passed", undefined],
    ]);
  });

  it("reports a failure and its rerunFailures as one failed attempt each", async () => {
    const failed = byName(await parseAll(fixture("surefire-rerun.xml")), "failsEveryTime");
    expect(failed.outcome).toBe("failed");
    expect(failed.attempts.map((attempt) => attempt.outcome)).toEqual(["failed", "failed", "failed"]);
    expect(failed.failure?.message).toBe(
      "widget count mismatch\nsecond line ==> expected: <43> but was: <42>",
    );
  });

  it("reports an error and its rerunErrors as one errored attempt each", async () => {
    const errored = byName(await parseAll(fixture("surefire-rerun.xml")), "errorsEveryTime");
    expect(errored.attempts.map((attempt) => attempt.failure?.kind)).toEqual(["error", "error", "error"]);
    expect(errored.failure?.type).toBe("java.lang.IllegalStateException");
  });

  it("reads a disabled test as skipped", async () => {
    expect(byName(await parseAll(fixture("surefire-rerun.xml")), "skipped").outcome).toBe("skipped");
  });
});

describe("jest-junit (documented format)", () => {
  it("reads the suite, the file attribute and the outcomes", async () => {
    const testCases = await parseAll(fixture("jest-junit.xml"));
    expect(testCases.map((testCase) => [testCase.parent, testCase.name, testCase.outcome])).toEqual([
      ["cart", "cart adds an item", "passed"],
      ["cart", "cart totals with tax", "failed"],
      ["cart", "cart applies a coupon", "skipped"],
      ["src/broken.test.js", "src/broken.test.js", "failed"],
    ]);
    expect(testCases.every((testCase) => testCase.filePath.startsWith("src/"))).toBe(true);
  });

  it("keeps the text of a failure that has no message attribute", async () => {
    const failed = byName(await parseAll(fixture("jest-junit.xml")), "cart totals with tax");
    expect(failed.failure).toMatchObject({ kind: "failure", message: "", type: "" });
    expect(failed.failure?.text).toMatch(
      /^Error: expect\(received\)\.toBe\(expected\) \/\/ Object.is equality\n\nExpected: 10.7\n/,
    );
  });

  it("reads a suite that failed to run as an errored test case", async () => {
    const errored = byName(await parseAll(fixture("jest-junit.xml")), "src/broken.test.js");
    expect(errored).toMatchObject({ classname: "Test suite failed to run", outcome: "failed" });
    expect(errored.failure?.text).toContain("Cannot find module './missing' from 'src/broken.test.js'");
  });
});

describe("go-junit-report (documented format)", () => {
  it("reads one suite per package, subtests included", async () => {
    const testCases = await parseAll(fixture("go-junit-report.xml"));
    expect(testCases.map((testCase) => [testCase.parent, testCase.name, testCase.outcome])).toEqual([
      ["github.com/acme/widgets/cart", "TestAdd", "passed"],
      ["github.com/acme/widgets/cart", "TestTotal", "failed"],
      ["github.com/acme/widgets/cart", "TestTotal/with_coupon", "failed"],
      ["github.com/acme/widgets/cart", "TestTotal/without_coupon", "passed"],
      ["github.com/acme/widgets/cart", "TestRemote", "skipped"],
      ["github.com/acme/widgets/store", "[build failed]", "failed"],
    ]);
  });

  it("keeps the CDATA output of a failure with its lines", async () => {
    const failed = byName(await parseAll(fixture("go-junit-report.xml")), "TestTotal");
    expect(failed.failure?.message).toBe("Failed");
    expect(failed.failure?.text).toBe(
      "cart_test.go:27: total = 10.699999999999999, want 10.7\n    cart_test.go:28: tax table:\n        rate 0.07",
    );
  });

  it("reads a build failure as an error", async () => {
    const buildFailure = byName(await parseAll(fixture("go-junit-report.xml")), "[build failed]");
    expect(buildFailure.failure).toMatchObject({ kind: "error", message: "Build error" });
  });
});

describe("Gradle (documented format)", () => {
  it("reads a retried test as two test cases, failed then passed", async () => {
    const testCases = await parseAll(fixture("gradle.xml"));
    const retried = testCases.filter((testCase) => testCase.name === "syncsInventory()");
    expect(retried.map((testCase) => [testCase.outcome, testCase.durationMs])).toEqual([
      ["failed", 1503],
      ["passed", 87],
    ]);
  });

  it("does not take the class's captured output for a failure", async () => {
    const testCases = await parseAll(fixture("gradle.xml"));
    expect(testCases.some((testCase) => testCase.failure?.text.includes("loaded 3 fixtures"))).toBe(false);
  });
});

describe("PHPUnit (documented format, nested suites)", () => {
  it("takes the innermost enclosing suite as the parent", async () => {
    const testCases = await parseAll(fixture("phpunit-nested.xml"));
    expect(testCases.map((testCase) => testCase.parent)).toEqual([
      "App\\Tests\\PriceTest",
      "App\\Tests\\PriceTest::testAdds",
      "App\\Tests\\PriceTest::testAdds",
    ]);
  });

  it("reads the failure of a data provider case", async () => {
    const failed = byName(await parseAll(fixture("phpunit-nested.xml")), "testAdds with data set #1");
    expect(failed.failure).toMatchObject({
      kind: "failure",
      type: "PHPUnit\\Framework\\ExpectationFailedException",
    });
    expect(failed.filePath).toBe("tests/PriceTest.php");
  });
});
