import { Readable } from "node:stream";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JunitParseError } from "../../src/test-reports/parsed-report.ts";
import {
  MAX_ELEMENT_DEPTH,
  MAX_FAILURE_TEXT_CHARS,
  MAX_MESSAGE_CHARS,
  MAX_NAME_CHARS,
  parseDurationMs,
} from "../../src/test-reports/junit-parser.ts";
import { parseJunitDocument, parseJunitDocumentInBatches } from "../../src/test-reports/junit-documents.ts";
import { byName, fixture, parseAll } from "./junit-helpers.ts";

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

describe("structure", () => {
  it("takes the file path from the enclosing suite when the test case has none", async () => {
    const [testCase] = await parseAll(
      '<testsuites><testsuite name="outer" file="spec/outer.rb"><testsuite name="inner">' +
        '<testcase name="works" classname="Outer"/></testsuite></testsuite></testsuites>',
    );
    expect(testCase).toMatchObject({ parent: "inner", filePath: "spec/outer.rb" });
  });

  it("prefers the test case's own file attribute to the suite's", async () => {
    const [testCase] = await parseAll(
      '<testsuite name="s" file="suite.py"><testcase name="t" file="case.py"/></testsuite>',
    );
    expect(testCase?.filePath).toBe("case.py");
  });

  it("gives a test case outside any suite an empty parent", async () => {
    const [testCase] = await parseAll('<testsuites name="all"><testcase name="loose"/></testsuites>');
    expect(testCase).toMatchObject({ name: "loose", parent: "", classname: "", filePath: "" });
  });

  it("reads suites nested inside suites nested inside testsuites", async () => {
    const testCases = await parseAll(
      '<testsuites><testsuites><testsuite name="a"><testcase name="one"/></testsuite></testsuites>' +
        '<testsuite name="b"><testsuite name="c"><testcase name="two"/></testsuite><testcase name="three"/></testsuite>' +
        "</testsuites>",
    );
    expect(testCases.map((testCase) => [testCase.name, testCase.parent])).toEqual([
      ["one", "a"],
      ["two", "c"],
      ["three", "b"],
    ]);
  });

  it("takes the first of several failure elements as the test case's failure", async () => {
    const [testCase] = await parseAll(
      '<testsuite><testcase name="t"><failure message="first"/><failure message="second"/></testcase></testsuite>',
    );
    expect(testCase?.failure?.message).toBe("first");
    expect(testCase?.attempts).toHaveLength(1);
  });

  it("counts a failure as failed even when the test case is also marked skipped", async () => {
    const [testCase] = await parseAll(
      '<testsuite><testcase name="t"><skipped/><error message="boom"/></testcase></testsuite>',
    );
    expect(testCase?.outcome).toBe("failed");
  });

  it("leaves captured output inside a flaky element out of the failure text", async () => {
    const [testCase] = await parseAll(
      '<testsuite><testcase name="t"><flakyFailure message="m"><stackTrace>trace line</stackTrace>' +
        "<system-out>noise</system-out><system-err>more noise</system-err></flakyFailure></testcase></testsuite>",
    );
    expect(testCase?.attempts[0]?.failure?.text).toBe("trace line");
  });

  it("keeps the order of several flaky runs before the final pass", async () => {
    const [testCase] = await parseAll(
      '<testsuite><testcase name="t"><flakyFailure message="one"/><flakyError message="two"/></testcase></testsuite>',
    );
    expect(testCase?.attempts.map((attempt) => attempt.failure?.message ?? attempt.outcome)).toEqual([
      "one",
      "two",
      "passed",
    ]);
  });

  it("keeps a test case repeated in one report as one test case per run", async () => {
    // The shape Gradle's test-retry plugin writes for a re-run (mergeReruns off): the same element twice.
    const testCases = await parseAll(
      '<testsuite name="com.acme.CartTest">' +
        '<testcase name="syncs()" classname="com.acme.CartTest" time="1.503"><failure message="timed out"/></testcase>' +
        '<testcase name="syncs()" classname="com.acme.CartTest" time="0.087"/></testsuite>',
    );
    expect(testCases.map((testCase) => [testCase.name, testCase.outcome, testCase.durationMs])).toEqual([
      ["syncs()", "failed", 1503],
      ["syncs()", "passed", 87],
    ]);
  });

  it("drops the JSON copy jest-junit writes after a test file that failed to load, and nothing else", async () => {
    const loadError = (file: string, result: string): string =>
      `<testsuite name="${file}"><testcase classname="Test suite failed to run" name="${file}" file="${file}">` +
      `${result}</testcase></testsuite>`;
    const testCases = await parseAll(
      "<testsuites>" +
        loadError("a.test.js", "<error>  ● Test suite failed to run\n\n    Error: a</error>") +
        // the same file's second element: jest-junit's copy of the error as JSON
        loadError("a.test.js", "<failure>{}</failure>") +
        loadError("b.test.js", "<failure>{}</failure>") +
        loadError("c.test.js", "<error>first</error>") +
        loadError("c.test.js", "<error>second</error>") +
        "</testsuites>",
    );
    expect(testCases.map((testCase) => [testCase.name, testCase.failure?.text])).toEqual([
      ["a.test.js", "● Test suite failed to run\n\n    Error: a"],
      ["b.test.js", "{}"],
      ["c.test.js", "first"],
      ["c.test.js", "second"],
    ]);
  });

  it("leaves out the line naming the test that PHPUnit puts before the failure", async () => {
    const phpunitCase = (name: string, result: string): string =>
      `<testcase name="${name}" class="App\\PriceTest" classname="App.PriceTest">${result}</testcase>`;
    const testCases = await parseAll(
      "<testsuite>" +
        phpunitCase(
          "testA",
          "<failure>App\\PriceTest::testA\nFailed asserting that false is true.</failure>",
        ) +
        phpunitCase(
          "testB with data set #0",
          "<error>App\\PriceTest::testB with data set #0 (1)\nboom</error>",
        ) +
        // nothing follows the line, so it is all there is to say
        phpunitCase("testC", "<failure>App\\PriceTest::testC</failure>") +
        // another test's name, or a message attribute: the text is the runner's, as it is
        phpunitCase("testD", "<failure>App\\PriceTest::testA\nsecond line</failure>") +
        phpunitCase("testE", '<failure message="m">App\\PriceTest::testE\nsecond line</failure>') +
        "</testsuite>",
    );
    expect(testCases.map((testCase) => testCase.failure?.text)).toEqual([
      "Failed asserting that false is true.",
      "boom",
      "App\\PriceTest::testC",
      "App\\PriceTest::testA\nsecond line",
      "App\\PriceTest::testE\nsecond line",
    ]);
  });

  it("joins text and CDATA sections of one failure", async () => {
    const [testCase] = await parseAll(
      '<testsuite><testcase name="t"><failure>before <![CDATA[<raw> & ]]>after</failure></testcase></testsuite>',
    );
    expect(testCase?.failure?.text).toBe("before <raw> & after");
  });

  it("ignores elements it does not know", async () => {
    const testCases = await parseAll(
      '<testsuite name="s"><properties><property name="testcase" value="x"/></properties>' +
        '<testcase name="t"><properties/><system-out>out</system-out></testcase><system-out>x</system-out></testsuite>',
    );
    expect(testCases).toHaveLength(1);
    expect(testCases[0]?.outcome).toBe("passed");
  });

  it("does not mistake elements named like object properties for results", async () => {
    const [testCase] = await parseAll(
      '<testsuite><testcase name="t"><constructor/><toString/><__proto__/></testcase></testsuite>',
    );
    expect(testCase?.outcome).toBe("passed");
  });

  it("ignores a leading byte-order mark in a string", async () => {
    expect(await parseAll('\uFEFF<testsuite><testcase name="t"/></testsuite>')).toHaveLength(1);
  });

  it("ignores a leading byte-order mark in bytes", async () => {
    const bytes = utf8(
      '\uFEFF<?xml version="1.0" encoding="UTF-8"?><testsuite><testcase name="t"/></testsuite>',
    );
    expect(await parseAll(bytes)).toHaveLength(1);
  });

  it("reads a Node stream of buffers", async () => {
    const stream = Readable.from([fixture("surefire-rerun.xml")]);
    expect(await parseAll(stream)).toEqual(await parseAll(fixture("surefire-rerun.xml")));
  });

  it("gives the same result however the bytes are cut into chunks", async () => {
    const document = fixture("vitest-4.xml");
    const whole = await parseAll(document);
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 1, max: document.length - 1 }), { maxLength: 40 }),
        async (cuts) => {
          const bounds = [0, ...cuts.sort((a, b) => a - b), document.length];
          const chunks = bounds.slice(1).map((end, index) => document.subarray(bounds[index], end));
          expect(await parseAll(chunks)).toEqual(whole);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("gives the same result however a string is cut, surrogate pairs included", async () => {
    const document =
      '<testsuite><testcase name="emoji 😀 test 𝄞"><failure message="💥">😀😀</failure></testcase></testsuite>';
    const whole = await parseAll(document);
    for (let cut = 1; cut < document.length; cut++) {
      expect(await parseAll([document.slice(0, cut), document.slice(cut)])).toEqual(whole);
    }
  });

  it("hands test cases over in batches of the requested size", async () => {
    const sizes: number[] = [];
    for await (const batch of parseJunitDocumentInBatches(fixture("vitest-4.xml"), {
      documentIndex: 0,
      batchSize: 2,
    })) {
      sizes.push(batch.length);
    }
    expect(sizes).toEqual([2, 2, 1]);
  });
});

describe("durations", () => {
  it.each([
    ["0.25", 250],
    ["12", 12_000],
    ["0.000147579", 0.148],
    ["1e-3", 1],
    [" 3.5 ", 3500],
    ["1,234.5", 1_234_500],
    ["12,345,678", null],
    ["0,25", 250],
    ["0,123", 123],
  ])("reads time=%j as %j ms", (time, expected) => {
    expect(parseDurationMs(time)).toBe(expected);
  });

  it.each(["", "abc", "NaN", "Infinity", "-1", "1e9", "1.2.3", "0x10"])(
    "reads time=%j as unknown",
    (time) => {
      expect(parseDurationMs(time)).toBeNull();
    },
  );

  it("reads a missing time attribute as unknown", async () => {
    const [testCase] = await parseAll('<testsuite><testcase name="t"/></testsuite>');
    expect(testCase?.durationMs).toBeNull();
  });
});

describe("errors", () => {
  it("names the document index, line and column of a truncated document", async () => {
    const truncated = '<?xml version="1.0"?>\n<testsuites>\n  <testsuite name="a">\n    <testcase name="x"/>';
    const error = await parseAll(truncated, 2).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(JunitParseError);
    expect(error).toMatchObject({ documentIndex: 2, line: 4, column: 25 });
    expect((error as Error).message).toBe(
      "document 2, line 4, column 25: unexpected end of document: <testsuite> is not closed",
    );
  });

  it("rejects an empty document", async () => {
    await expect(parseAll("", 1)).rejects.toThrow(
      "document 1, line 1, column 1: the document is empty: no root element",
    );
  });

  it("rejects a root element that is not a JUnit report", async () => {
    await expect(parseAll("<html><body/></html>")).rejects.toThrow(
      "the root element is <html>, not <testsuites> or <testsuite>",
    );
  });

  it("rejects mismatched tags", async () => {
    await expect(parseAll('<testsuite><testcase name="a"></testsuite>')).rejects.toThrow(JunitParseError);
  });

  it("rejects text after the root element", async () => {
    await expect(parseAll("<testsuite></testsuite>garbage")).rejects.toThrow(JunitParseError);
  });

  it("rejects an entity that XML does not define", async () => {
    await expect(parseAll('<testsuite><testcase name="&nbsp;"/></testsuite>')).rejects.toThrow(
      "undefined entity",
    );
  });
});

describe("hostile input", () => {
  it("rejects an entity bomb (billion laughs) at its DOCTYPE, without expanding it", async () => {
    const entities = ['<!ENTITY lol0 "lol">'];
    for (let level = 1; level <= 9; level++) {
      entities.push(`<!ENTITY lol${level} "${`&lol${level - 1};`.repeat(10)}">`);
    }
    const bomb = `<?xml version="1.0"?>\n<!DOCTYPE lolz [\n${entities.join("\n")}\n]>\n<testsuites>&lol9;</testsuites>`;
    const started = performance.now();
    const error = await parseAll(bomb, 3).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(JunitParseError);
    expect((error as Error).message).toMatch(
      /^document 3, line 13, column \d+: a DOCTYPE is not allowed in a JUnit report$/,
    );
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("rejects an external entity (XXE) at its DOCTYPE", async () => {
    const external =
      '<?xml version="1.0"?><!DOCTYPE t [<!ENTITY x SYSTEM "file:///etc/passwd">]><testsuite name="&x;"/>';
    await expect(parseAll(external)).rejects.toThrow("a DOCTYPE is not allowed in a JUnit report");
  });

  it("rejects a DOCTYPE without an internal subset too", async () => {
    await expect(parseAll('<!DOCTYPE testsuite SYSTEM "junit.dtd"><testsuite/>')).rejects.toThrow(
      JunitParseError,
    );
  });

  it("reads invalid UTF-8 bytes as replacement characters", async () => {
    const bytes = Buffer.concat([
      Buffer.from('<testsuite><testcase name="bad '),
      Buffer.from([0xff, 0xfe, 0xc3]),
      Buffer.from(' bytes"><failure message="'),
      Buffer.from([0xe2, 0x82]),
      Buffer.from('"/></testcase></testsuite>'),
    ]);
    const [testCase] = await parseAll(bytes);
    expect(testCase?.name).toBe("bad \uFFFD\uFFFD\uFFFD bytes");
    expect(testCase?.failure?.message).toBe("\uFFFD");
  });

  it("replaces control characters that XML forbids, such as ANSI colour codes", async () => {
    const [testCase] = await parseAll(
      '<testsuite><testcase name="t"><failure message="\u001b[31mred\u001b[0m">\u0000nul</failure></testcase></testsuite>',
    );
    expect(testCase?.failure?.message).toBe("\uFFFD[31mred\uFFFD[0m");
    expect(testCase?.failure?.text).toBe("\uFFFDnul");
  });

  it("replaces a lone surrogate in a string", async () => {
    const [testCase] = await parseAll('<testsuite><testcase name="a\uD800b"/></testsuite>');
    expect(testCase?.name).toBe("a\uFFFDb");
  });

  it("bounds huge attribute values", async () => {
    const huge = "x".repeat(2 * 1024 * 1024);
    const [testCase] = await parseAll(
      `<testsuite name="${huge}" file="${huge}"><testcase name="${huge}" classname="${huge}">` +
        `<failure message="${huge}" type="${huge}"/></testcase></testsuite>`,
    );
    expect(testCase?.name).toHaveLength(MAX_NAME_CHARS);
    expect(testCase?.classname).toHaveLength(MAX_NAME_CHARS);
    expect(testCase?.parent).toHaveLength(MAX_NAME_CHARS);
    expect(testCase?.filePath).toHaveLength(MAX_NAME_CHARS);
    expect(testCase?.failure?.message).toHaveLength(MAX_MESSAGE_CHARS);
    expect(testCase?.failure?.type).toHaveLength(MAX_NAME_CHARS);
  });

  it("never cuts a surrogate pair in half when bounding a value", async () => {
    const name = `${"x".repeat(MAX_NAME_CHARS - 1)}😀`;
    const [testCase] = await parseAll(`<testsuite><testcase name="${name}"/></testsuite>`);
    expect(testCase?.name).toBe("x".repeat(MAX_NAME_CHARS - 1));
  });

  it("bounds a huge failure text and marks it truncated", async () => {
    const chunk = "stack frame line\n".repeat(1000);
    const [testCase] = await parseAll([
      '<testsuite><testcase name="t"><failure message="m">',
      ...Array.from({ length: 200 }, () => chunk),
      "</failure></testcase></testsuite>",
    ]);
    const text = testCase?.failure?.text ?? "";
    expect(text.endsWith("\n[truncated]")).toBe(true);
    expect(text.length).toBeLessThanOrEqual(MAX_FAILURE_TEXT_CHARS + "\n[truncated]".length);
  });

  it("rejects elements nested absurdly deep", async () => {
    const deep = `<testsuites>${"<testsuite>".repeat(MAX_ELEMENT_DEPTH)}${"</testsuite>".repeat(MAX_ELEMENT_DEPTH)}</testsuites>`;
    await expect(parseAll(deep)).rejects.toThrow(`elements are nested more than ${MAX_ELEMENT_DEPTH} deep`);
  });

  it("throws nothing but a JunitParseError on arbitrary text", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "binary", maxLength: 200 }), async (text) => {
        await parseAll(text).catch((error: unknown) => expect(error).toBeInstanceOf(JunitParseError));
      }),
      { numRuns: 300 },
    );
  });

  it("throws nothing but a JunitParseError on arbitrary bytes", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 200 }), async (bytes) => {
        await parseAll(bytes).catch((error: unknown) => expect(error).toBeInstanceOf(JunitParseError));
      }),
      { numRuns: 300 },
    );
  });

  it("throws nothing but a JunitParseError on a real report truncated or corrupted anywhere", async () => {
    const document = fixture("surefire-rerun.xml").toString("utf8");
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: document.length }),
        fc.string({ maxLength: 3 }),
        async (position, inserted) => {
          const corrupted = document.slice(0, position) + inserted + document.slice(position, position + 200);
          await parseAll(corrupted).catch((error: unknown) => expect(error).toBeInstanceOf(JunitParseError));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("parses a 20 MiB report as a stream, with memory independent of its size", async () => {
    const target = 20 * 1024 * 1024;
    let chunksRead = 0;
    async function* report(): AsyncGenerator<string> {
      yield '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n';
      let produced = 0;
      let index = 0;
      while (produced < target) {
        let chunk = `<testsuite name="suite ${chunksRead}" file="src/suite-${chunksRead}.test.ts">\n`;
        while (chunk.length < 60_000) {
          const name = `c${chunksRead} t${index}`;
          chunk +=
            index % 10 === 0
              ? `  <testcase name="${name}" classname="pkg.Suite" time="0.01"><failure message="expected ${index}">` +
                `AssertionError: expected ${index}\n  at file.ts:${index}</failure></testcase>\n`
              : `  <testcase name="${name}" classname="pkg.Suite" time="0.002"/>\n`;
          index++;
        }
        chunk += "</testsuite>\n";
        produced += chunk.length;
        chunksRead++;
        yield chunk;
      }
      yield "</testsuites>\n";
    }
    const heapBefore = process.memoryUsage().heapUsed;
    let heapGrowth = 0;
    let count = 0;
    let failed = 0;
    let furthestReadAhead = 0;
    for await (const testCase of parseJunitDocument(report(), { documentIndex: 0 })) {
      count++;
      if (testCase.outcome === "failed") failed++;
      // A test case written in chunk n must arrive while chunk n, or the next, is being read: nothing is buffered.
      const writtenIn = Number(/^c(\d+) /.exec(testCase.name)?.[1]);
      furthestReadAhead = Math.max(furthestReadAhead, chunksRead - writtenIn);
      if (count % 10_000 === 0)
        heapGrowth = Math.max(heapGrowth, process.memoryUsage().heapUsed - heapBefore);
    }
    expect(count).toBeGreaterThan(150_000);
    expect(failed).toBe(Math.ceil(count / 10));
    expect(furthestReadAhead).toBeLessThanOrEqual(2);
    expect(heapGrowth).toBeLessThan(64 * 1024 * 1024);
  });
});

describe("a real report", () => {
  it("is read the same from a string and from bytes", async () => {
    const bytes = fixture("pytest-xunit1.xml");
    expect(await parseAll(bytes.toString("utf8"))).toEqual(await parseAll(bytes));
  });

  it("keeps every test case of a document, skipped ones included", async () => {
    const testCases = await parseAll(fixture("pytest-xunit1.xml"));
    expect(testCases).toHaveLength(9);
    expect(byName(testCases, "test_skipped").attempts).toEqual([{ outcome: "skipped", failure: null }]);
  });
});
