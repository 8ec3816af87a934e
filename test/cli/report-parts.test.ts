// Cutting one JUnit report into parts: the service's own parser reads the same test cases from the parts, in the
// same order and the same suites, as from the whole, and no part is over the size asked for.
import { describe, expect, it } from "vitest";
import { splitReport } from "../../src/cli/report-parts.ts";
import { CliError } from "../../src/cli/io.ts";
import { parseJunitDocument } from "../../src/test-reports/junit-documents.ts";
import type { ParsedTestCase } from "../../src/test-reports/parsed-report.ts";

async function parse(documents: string[]): Promise<ParsedTestCase[]> {
  const cases: ParsedTestCase[] = [];
  for (const [documentIndex, document] of documents.entries()) {
    for await (const testCase of parseJunitDocument(document, { documentIndex })) cases.push(testCase);
  }
  return cases;
}

const jsonBytes = (text: string) => Buffer.byteLength(JSON.stringify(text)) - 2;

const testcase = (name: string, body = "") =>
  body === ""
    ? `<testcase name="${name}" classname="pkg.Widget" time="0.5"/>`
    : `<testcase name="${name}" classname="pkg.Widget" time="0.5">${body}</testcase>`;

/** Every shape the service reads: nested suites inheriting files, results, reruns, output, comments, entities. */
const reports: Record<string, string> = {
  "nested suites under <testsuites>": [
    '<?xml version="1.0" encoding="UTF-8"?>\n<!-- written by a runner -->\n<testsuites name="all" tests="9">',
    '<testsuite name="outer" file="src/outer.test.ts"><properties><property name="seed" value="7"/></properties>',
    ...Array.from({ length: 6 }, (_, i) =>
      testcase(`outer ${i}`, i === 2 ? '<skipped message="later"/>' : ""),
    ),
    '<testsuite name="inner &amp; deeper">',
    ...Array.from({ length: 6 }, (_, i) =>
      testcase(`inner ${i} ✓ 😀`, i % 2 === 0 ? '<failure message="boom &lt;1&gt;">at x.ts:1</failure>' : ""),
    ),
    "</testsuite>",
    testcase("outer after inner", "<system-out><![CDATA[<not> a tag]]></system-out>"),
    '</testsuite><testsuite name="second" file="src/second.test.ts">',
    ...Array.from({ length: 5 }, (_, i) => testcase(`second ${i}`, '<error message="e">trace</error>')),
    "</testsuite><system-out>suite output</system-out></testsuites>\n",
  ].join("\n"),
  "a root <testsuite>, with reruns written as consecutive elements": [
    '<testsuite name="flaky" file="src/flaky.test.ts">',
    ...Array.from({ length: 4 }, (_, i) => [
      testcase(`retried ${i}`, '<failure message="first try">x</failure>'),
      testcase(`retried ${i}`),
    ]).flat(),
    ...Array.from({ length: 6 }, (_, i) => testcase(`plain ${i}`)),
    "</testsuite>",
  ].join("\n"),
  "characters XML forbids, which the service replaces": [
    '<testsuites><testsuite name="colours">',
    ...Array.from({ length: 8 }, (_, i) =>
      testcase(`coloured ${i}`, `<failure message="\u001b[31mred\u001b[0m">\u001b[1mbold\u0000</failure>`),
    ),
    "</testsuite></testsuites>",
  ].join(""),
};

describe("splitReport", () => {
  for (const [shape, report] of Object.entries(reports)) {
    it(`keeps every test case of ${shape}, in order and in its suites`, async () => {
      const whole = await parse([report]);
      for (const maxBytes of [400, 700, Math.floor(jsonBytes(report) * 0.6)]) {
        const parts = splitReport(report, maxBytes, "report.xml");
        expect(parts.length).toBeGreaterThan(1);
        for (const part of parts) expect(jsonBytes(part)).toBeLessThanOrEqual(maxBytes);
        expect(await parse(parts)).toEqual(whole);
      }
    });
  }

  it("keeps consecutive elements of one test in the same part, as the service reads them together", () => {
    const parts = splitReport(
      reports["a root <testsuite>, with reruns written as consecutive elements"]!,
      400,
      "r",
    );
    for (const part of parts) {
      const names = [...part.matchAll(/name="(retried \d)"/g)].map((match) => match[1]);
      for (const name of new Set(names)) expect(names.filter((n) => n === name)).toHaveLength(2);
    }
  });

  it("refuses a test case larger than a part may be, and a report that is not XML, naming the file", () => {
    const big = `<testsuite name="s">${testcase("huge", `<system-out>${"x".repeat(5000)}</system-out>`)}</testsuite>`;
    expect(() => splitReport(big, 1000, "reports/big.xml")).toThrow(
      new CliError("reports/big.xml holds a test case too large to upload (over 1000 bytes as JSON)"),
    );
    expect(() => splitReport("<testsuite><testcase></testsuite>", 1000, "reports/bad.xml")).toThrow(
      /^reports\/bad\.xml is too large for one request and cannot be cut in parts: /,
    );
  });
});
