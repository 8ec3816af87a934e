import { Readable } from "node:stream";
import { describe, expect, it, vi } from "vitest";
import { JunitParseError } from "../../src/test-reports/parsed-report.ts";
import { OUTCOMES, type ReadBatch } from "../../src/test-reports/report-batches.ts";
import { readReports } from "../../src/test-reports/report-reader.ts";
import { testCaseId } from "../../src/test-health/index.ts";

const repository = { host: "github.com", owner: "Acme", name: "Widgets" };

async function readAll(documents: Parameters<typeof readReports>[0], batchSize = 2): Promise<ReadBatch[]> {
  const batches: ReadBatch[] = [];
  for await (const batch of readReports(documents, {
    repository,
    variant: "linux",
    repoRoot: null,
    batchSize,
  }))
    batches.push(batch);
  return batches;
}

/** What a batch says of each test, as ingestion reads it. */
function describeBatch(batch: ReadBatch) {
  let failed = 0;
  return batch.tests.map((test) => {
    const attempts = [];
    for (let attempt = test.firstAttempt; attempt < test.endAttempt; attempt++) {
      const outcome = OUTCOMES[batch.outcomes[attempt] as number];
      attempts.push({
        outcome,
        seq: batch.seqs[attempt],
        summary: outcome === "failed" ? batch.failureSummaries[failed++] : null,
      });
    }
    const { id, name, classname, parent, filePath, failedFinally } = test;
    return { id, name, classname, parent, filePath, failedFinally, attempts };
  });
}

const suite = (cases: string) => `<testsuite name="suite" file="widget.spec.ts">${cases}</testsuite>`;

describe("reading an upload's reports", () => {
  it("groups each batch by test, numbers attempts across documents and summarises failures", async () => {
    const first = suite(
      '<testcase classname="W" name="a"/>' +
        '<testcase classname="W" name="b"><failure message="expected 3 but got 4"/></testcase>' +
        '<testcase classname="W" name="a"><skipped/></testcase>',
    );
    const second = suite(
      '<testcase classname="W" name="c"><flakyFailure message="timeout after 500 ms"/></testcase>',
    );
    const batches = await readAll([first, second], 3);
    expect(batches.map((batch) => batch.testCases)).toEqual([3, 1]);
    const id = (name: string) =>
      testCaseId(repository, {
        filePath: "widget.spec.ts",
        classname: "W",
        parent: "suite",
        name,
        variant: "linux",
      });
    const identity = { classname: "W", parent: "suite", filePath: "widget.spec.ts" };
    expect(batches.map(describeBatch)).toEqual([
      [
        {
          id: id("a"),
          name: "a",
          ...identity,
          failedFinally: false,
          attempts: [
            { outcome: "passed", seq: 0, summary: null },
            { outcome: "skipped", seq: 2, summary: null },
          ],
        },
        {
          id: id("b"),
          name: "b",
          ...identity,
          failedFinally: true,
          attempts: [{ outcome: "failed", seq: 1, summary: "expected <n> but got <n>" }],
        },
      ],
      [
        {
          id: id("c"),
          name: "c",
          ...identity,
          failedFinally: false,
          attempts: [
            { outcome: "failed", seq: 3, summary: "timeout after <n> ms" },
            { outcome: "passed", seq: 4, summary: null },
          ],
        },
      ],
    ]);
  });

  it("keeps the failures of a test repeated in a batch with that test, in the order of the report", async () => {
    const report = suite(
      '<testcase classname="W" name="a"><failure message="first 1"/></testcase>' +
        '<testcase classname="W" name="b"><error message="second 2"/></testcase>' +
        '<testcase classname="W" name="a"><failure message="third 3"/></testcase>',
    );
    const [batch] = await readAll([report], 10);
    expect(
      describeBatch(batch as ReadBatch).map(({ name, failedFinally, attempts }) => ({
        name,
        failedFinally,
        attempts,
      })),
    ).toEqual([
      {
        name: "a",
        failedFinally: true,
        attempts: [
          { outcome: "failed", seq: 0, summary: "first <n>" },
          { outcome: "failed", seq: 2, summary: "third <n>" },
        ],
      },
      { name: "b", failedFinally: true, attempts: [{ outcome: "failed", seq: 1, summary: "second <n>" }] },
    ]);
  });

  it("reads byte streams cut anywhere, multi-byte characters included", async () => {
    const bytes = Buffer.from(suite('<testcase classname="Ünïcødé" name="名前 🚀"/>'));
    const chunks = Array.from({ length: bytes.length }, (_, index) => bytes.subarray(index, index + 1));
    const [batch] = await readAll([Readable.from(chunks)]);
    expect(describeBatch(batch as ReadBatch)[0]).toMatchObject({ name: "名前 🚀", classname: "Ünïcødé" });
  });

  it("reads several uploads at once, each its own documents", async () => {
    const report = (prefix: string) =>
      suite(
        Array.from({ length: 50 }, (_, index) => `<testcase classname="W" name="${prefix}${index}"/>`).join(
          "",
        ),
      );
    const names = async (prefix: string) => {
      const read: string[] = [];
      for await (const batch of readReports([report(prefix), report(`${prefix}-again-`)], {
        repository,
        variant: "",
        repoRoot: null,
        batchSize: 7,
      })) {
        read.push(...batch.tests.map((test) => test.name));
        // Let the other uploads' batches in between.
        await new Promise((resolve) => setImmediate(resolve));
      }
      return read;
    };
    const uploads = await Promise.all(["a", "b", "c"].map(names));
    for (const [index, prefix] of ["a", "b", "c"].entries()) {
      const expected = [prefix, `${prefix}-again-`].flatMap((p) =>
        Array.from({ length: 50 }, (_, i) => `${p}${i}`),
      );
      expect(uploads[index]).toEqual(expected);
    }
  });

  it("fails with the parse error of the malformed document, naming it and the line", async () => {
    const error = await readAll([suite('<testcase name="ok"/>'), "<testsuite>\n<testcase name='x'>"]).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(JunitParseError);
    expect(error).toMatchObject({ documentIndex: 1, line: 2 });
  });

  it("fails with the error of a document's stream", async () => {
    async function* broken() {
      yield "<testsuite>";
      throw new Error("connection reset by the client");
    }
    await expect(readAll([broken()])).rejects.toThrow("connection reset by the client");
  });

  it("stops reading, and closes the document, when the upload stops early", async () => {
    let closed = false;
    async function* endless() {
      try {
        yield "<testsuite>";
        for (;;) yield '<testcase name="again"/>';
      } finally {
        closed = true;
      }
    }
    for await (const batch of readReports([endless()], {
      repository,
      variant: "",
      repoRoot: null,
      batchSize: 10,
    })) {
      expect(batch.testCases).toBe(10);
      break;
    }
    await vi.waitFor(() => expect(closed).toBe(true));
  });

  it("lets other work of the process run between batches, even when the report is at hand whole", async () => {
    const report = suite(
      Array.from({ length: 100 }, (_, index) => `<testcase classname="W" name="t${index}"/>`).join(""),
    );
    let batchesRead = 0;
    let readWhenOtherWorkRan: number | undefined;
    setImmediate(() => (readWhenOtherWorkRan = batchesRead));
    for await (const _ of readReports([report], { repository, variant: "", repoRoot: null, batchSize: 10 })) {
      batchesRead++;
    }
    expect(batchesRead).toBe(10);
    expect(readWhenOtherWorkRan).toBeLessThan(2);
  });

  it("reads a batch holding 20 MiB of failure text", async () => {
    const trace = "at Widget.spin (widget.ts:1)\n".repeat(2300);
    const cases = Array.from(
      { length: 300 },
      (_, index) =>
        `<testcase name="t${index}"><failure message="spun ${index}">${trace}</failure></testcase>`,
    );
    const report = suite(cases.join(""));
    expect(report.length).toBeGreaterThan(19 * 1024 * 1024);
    const [batch] = await readAll([report], 1000);
    expect(batch?.testCases).toBe(300);
    expect(new Set(batch?.failureSummaries)).toEqual(new Set(["spun <n>"]));
  });
});
