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

describe("jest-junit (real output of jest-junit 17.0.0 on Jest 30.5.2)", () => {
  it("reads the suite, the name, the file attribute and the outcome of every test", async () => {
    const testCases = await parseAll(fixture("jest-junit.xml"));
    expect(
      testCases.map((testCase) => [testCase.parent, testCase.name, testCase.filePath, testCase.outcome]),
    ).toEqual([
      ["cart", "cart adds an item", "src/cart.test.js", "passed"],
      ["cart", "cart totals with tax", "src/cart.test.js", "failed"],
      ["cart", "cart applies a coupon from the server", "src/cart.test.js", "skipped"],
      ["cart", "cart coupons percent off takes 10% off", "src/cart.test.js", "passed"],
      ["cart", "cart coupons percent off refuses more than 100%", "src/cart.test.js", "failed"],
      ["cart", " top-level test outside any describe", "src/cart.test.js", "passed"],
      ["src/broken.test.js", "src/broken.test.js", "src/broken.test.js", "failed"],
      ["src/throws.test.js", "src/throws.test.js", "src/throws.test.js", "failed"],
    ]);
    expect(byName(testCases, "cart adds an item")).toMatchObject({
      classname: "cart adds an item",
      durationMs: 2,
    });
  });

  it("keeps the name of a test outside any describe block as written, leading space included", async () => {
    // jest-junit joins the (no) describe blocks and the title with a space; a test's id is computed from the
    // attribute as the report has it, so the name is not trimmed.
    const topLevel = byName(
      await parseAll(fixture("jest-junit.xml")),
      " top-level test outside any describe",
    );
    expect(topLevel).toMatchObject({ classname: " top-level test outside any describe", outcome: "passed" });
  });

  it("keeps the multi-line text of a failure that has no message attribute", async () => {
    const failed = byName(await parseAll(fixture("jest-junit.xml")), "cart totals with tax");
    expect(failed.failure).toMatchObject({ kind: "failure", message: "", type: "" });
    expect(failed.failure?.text).toMatch(
      /^Error: expect\(received\)\.toBe\(expected\) \/\/ Object\.is equality\n\nExpected: 10\.7\nReceived: 10\.700000000000001\n {4}at Object\.toBe \(\/tmp\/jestjunit\/src\/cart\.test\.js:9:54\)\n/,
    );
    expect(failed.attempts).toEqual([{ outcome: "failed", failure: failed.failure }]);
  });

  it("reads escaped quotes and a line break inside an expected message", async () => {
    const failed = byName(
      await parseAll(fixture("jest-junit.xml")),
      "cart coupons percent off refuses more than 100%",
    );
    expect(failed.failure?.text).toContain(
      'Expected substring: "coupon HUGE is over 100%\nand the cart keeps its total"\n' +
        'Received message:   "coupon HUGE is over 100%"\n',
    );
  });

  it("reads a test file with a syntax error as one errored test case carrying Jest's message", async () => {
    const testCases = await parseAll(fixture("jest-junit.xml"));
    // jest-junit also writes the error a second time, as JSON in a <failure>: that is not a second run.
    expect(testCases.filter((testCase) => testCase.name === "src/broken.test.js")).toHaveLength(1);
    const broken = byName(testCases, "src/broken.test.js");
    expect(broken).toMatchObject({ classname: "Test suite failed to run", outcome: "failed", durationMs: 0 });
    expect(broken.attempts).toHaveLength(1);
    expect(broken.failure).toMatchObject({ kind: "error", message: "", type: "" });
    expect(broken.failure?.text).toMatch(
      /^● Test suite failed to run\n\n {4}SyntaxError: \/tmp\/jestjunit\/src\/broken\.test\.js: Unexpected token, expected "," \(6:3\)\n/,
    );
  });

  it("reads a test file that throws while loading as one errored test case carrying the thrown message", async () => {
    const testCases = await parseAll(fixture("jest-junit.xml"));
    expect(testCases.filter((testCase) => testCase.name === "src/throws.test.js")).toHaveLength(1);
    const throwing = byName(testCases, "src/throws.test.js");
    expect(throwing.failure?.kind).toBe("error");
    expect(throwing.failure?.text).toContain(
      "fixture database unavailable\n    set SHOP_DB_URL to run these tests\n",
    );
    expect(throwing.failure?.text).not.toBe("{}");
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

describe("gotestsum (real output of gotestsum 1.8.2 on Go 1.19)", () => {
  it("reads one suite per package, subtests included, and leaves a package that did not build out", async () => {
    // gotestsum 1.8.2 writes nothing for the package whose build failed: only its console output says so.
    const testCases = await parseAll(fixture("gotestsum.xml"));
    expect(testCases.map((testCase) => [testCase.parent, testCase.name, testCase.outcome])).toEqual([
      ["example.com/widgets/cart", "TestTotal/with_coupon", "failed"],
      ["example.com/widgets/cart", "TestTotal", "failed"],
      ["example.com/widgets/cart", "TestRemote", "skipped"],
      ["example.com/widgets/cart", "TestAdd", "passed"],
      ["example.com/widgets/cart", "TestTotal/without_coupon", "passed"],
    ]);
    expect(testCases.every((testCase) => testCase.classname === "example.com/widgets/cart")).toBe(true);
  });

  it("reads the test's output, written with character references, as the failure text", async () => {
    const failed = byName(await parseAll(fixture("gotestsum.xml")), "TestTotal");
    expect(failed.failure).toEqual({
      kind: "failure",
      message: "Failed",
      type: "",
      text:
        "=== RUN   TestTotal\n    cart_test.go:16: total = 10.700000000000001, want 10.7\n        tax table:\n" +
        "        \trate 0.07\n--- FAIL: TestTotal (0.00s)",
    });
  });
});

describe("Gradle (real output of Gradle 4.4.1 running JUnit 4.13.2)", () => {
  it("reads a bare <testsuite> root: the class is the suite and the classname, and there is no file", async () => {
    const testCases = await parseAll(fixture("gradle.xml"));
    expect(testCases.map((testCase) => [testCase.name, testCase.outcome])).toEqual([
      ["syncsInventory", "skipped"],
      ["appliesCoupon", "failed"],
      ["addsAnItem", "passed"],
      ["totalsWithTax", "failed"],
    ]);
    for (const testCase of testCases) {
      expect(testCase).toMatchObject({
        classname: "com.acme.widgets.CartTest",
        parent: "com.acme.widgets.CartTest",
        filePath: "",
      });
    }
    expect(byName(testCases, "appliesCoupon").durationMs).toBe(5);
  });

  it("reads a line break written as a character reference in the message attribute", async () => {
    const failed = byName(await parseAll(fixture("gradle.xml")), "totalsWithTax");
    expect(failed.failure).toMatchObject({
      kind: "failure",
      message:
        "java.lang.AssertionError: total with tax\nfor 2 items at 7% expected:<10.7> but was:<10.700000000000001>",
      type: "java.lang.AssertionError",
    });
    expect(failed.failure?.text).toMatch(
      /^java\.lang\.AssertionError: total with tax\nfor 2 items at 7% expected:<10\.7> but was:<10\.700000000000001>\n\tat org\.junit\.Assert\.fail\(Assert\.java:89\)\n/,
    );
  });

  it("reads an unexpected exception as the <failure> Gradle writes for it", async () => {
    const errored = byName(await parseAll(fixture("gradle.xml")), "appliesCoupon");
    expect(errored.outcome).toBe("failed");
    expect(errored.failure).toMatchObject({
      kind: "failure",
      message: "java.lang.IllegalStateException: no coupon code",
      type: "java.lang.IllegalStateException",
    });
  });

  it("does not take the class's captured output for a failure", async () => {
    const testCases = await parseAll(fixture("gradle.xml"));
    expect(testCases.some((testCase) => testCase.failure?.text.includes("cart: loaded 2 items"))).toBe(false);
  });

  it("reads a failing @BeforeClass as the failed test case classMethod", async () => {
    const testCases = await parseAll(fixture("gradle-class-error.xml"));
    expect(testCases).toHaveLength(1);
    expect(testCases[0]).toMatchObject({
      name: "classMethod",
      classname: "com.acme.widgets.InventoryTest",
      parent: "com.acme.widgets.InventoryTest",
      outcome: "failed",
    });
    expect(testCases[0]?.failure).toMatchObject({
      kind: "failure",
      message:
        "java.lang.IllegalStateException: inventory service unreachable\nset INVENTORY_URL to run these tests",
      type: "java.lang.IllegalStateException",
    });
  });
});

describe("PHPUnit (real output of PHPUnit 9.6.7, nested suites)", () => {
  it("takes the innermost enclosing suite as the parent, a data provider's suite included", async () => {
    const testCases = await parseAll(fixture("phpunit-nested.xml"));
    expect(testCases.map((testCase) => [testCase.parent, testCase.name, testCase.outcome])).toEqual([
      ["App\\Tests\\InventoryTest", "testCountsStock", "failed"],
      ["App\\Tests\\PriceTest", "testRounds", "passed"],
      ["App\\Tests\\PriceTest::testAdds", "testAdds with data set #0", "passed"],
      ["App\\Tests\\PriceTest::testAdds", "testAdds with data set #1", "failed"],
      ["App\\Tests\\PriceTest", "testWithTax", "failed"],
      ["App\\Tests\\PriceTest", "testParses", "failed"],
      ["App\\Tests\\PriceTest", "testConverts", "skipped"],
    ]);
  });

  it("keeps the dotted classname and the file path as PHPUnit writes them (absolute)", async () => {
    const testCase = byName(await parseAll(fixture("phpunit-nested.xml")), "testAdds with data set #1");
    expect(testCase).toMatchObject({
      classname: "App.Tests.PriceTest",
      filePath: "/tmp/phpproj/tests/PriceTest.php",
      durationMs: 0.168,
    });
  });

  it("reads the failure of a data provider case without the line that names the test", async () => {
    const failed = byName(await parseAll(fixture("phpunit-nested.xml")), "testAdds with data set #1");
    expect(failed.failure).toEqual({
      kind: "failure",
      message: "",
      type: "PHPUnit\\Framework\\ExpectationFailedException",
      text: "Failed asserting that 4 is identical to 5.\n\n/tmp/phpproj/tests/PriceTest.php:20",
    });
  });

  it("keeps a multi-line assertion message", async () => {
    const failed = byName(await parseAll(fixture("phpunit-nested.xml")), "testWithTax");
    expect(failed.failure?.text).toBe(
      "total with tax\nfor 10.00 at 7%\nFailed asserting that 10.700000000000001 is identical to 10.7.\n\n" +
        "/tmp/phpproj/tests/PriceTest.php:33",
    );
  });

  it("reads an exception as an error, one thrown by setUpBeforeClass included", async () => {
    const testCases = await parseAll(fixture("phpunit-nested.xml"));
    expect(byName(testCases, "testParses").failure).toMatchObject({
      kind: "error",
      type: "InvalidArgumentException",
      text: expect.stringMatching(/^InvalidArgumentException: not a price: "twelve"\n/) as unknown,
    });
    expect(byName(testCases, "testCountsStock").failure).toMatchObject({
      kind: "error",
      type: "RuntimeException",
      text: expect.stringMatching(
        /^RuntimeException: inventory service unreachable\nset INVENTORY_URL to run these tests\n/,
      ) as unknown,
    });
  });
});
