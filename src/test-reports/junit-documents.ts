// Streaming JUnit XML parsing (docs/test-health.md#uploading-results-from-ci). A report is read element by element with saxes and never
// materialised as a tree: only the test case being read and the enclosing suites' names are held, so memory stays
// bounded by the largest single XML token, whatever the number of test cases.
import { JunitDocumentParser } from "./junit-parser.ts";
import type { ParsedTestCase } from "./parsed-report.ts";

// The streaming form hands input to the parser in slices of this size, so the test cases read from one slice
// (and waiting to be yielded) stay few.
const SLICE_CHARS = 64 * 1024;

export type JunitInput =
  string | Uint8Array | Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>;

/**
 * Parses one JUnit XML document, yielding its test cases one by one as they are read. `input` is the whole
 * document, or its chunks (as a Node stream or any iterable gives them). Throws {@link JunitParseError}.
 */
export async function* parseJunitDocument(
  input: JunitInput,
  options: { documentIndex: number },
): AsyncGenerator<ParsedTestCase> {
  const ready: ParsedTestCase[] = [];
  const parser = new JunitDocumentParser({
    documentIndex: options.documentIndex,
    onTestCase: (testCase) => ready.push(testCase),
  });
  for await (const chunk of documentChunks(input)) {
    parser.write(chunk);
    yield* ready.splice(0);
  }
  parser.end();
  yield* ready.splice(0);
}

/**
 * {@link parseJunitDocument}, in arrays of at most `batchSize` test cases, for batched inserts. The parser fills the
 * batches itself: going through the case-by-case generator would cost an asynchronous step per test case, as much
 * as parsing it.
 */
export async function* parseJunitDocumentInBatches(
  input: JunitInput,
  options: { documentIndex: number; batchSize: number },
): AsyncGenerator<ParsedTestCase[]> {
  const full: ParsedTestCase[][] = [];
  let batch: ParsedTestCase[] = [];
  const parser = new JunitDocumentParser({
    documentIndex: options.documentIndex,
    onTestCase: (testCase) => {
      batch.push(testCase);
      if (batch.length >= options.batchSize) {
        full.push(batch);
        batch = [];
      }
    },
  });
  for await (const chunk of documentChunks(input)) {
    parser.write(chunk);
    yield* full.splice(0);
  }
  parser.end();
  yield* full.splice(0);
  if (batch.length > 0) yield batch;
}

/** A document's chunks, none longer than the parser takes in one step. */
export async function* documentChunks(input: JunitInput): AsyncGenerator<string | Uint8Array> {
  if (typeof input === "string" || input instanceof Uint8Array) {
    yield* slices(input);
    return;
  }
  for await (const chunk of input) yield* slices(chunk);
}

function* slices(chunk: string | Uint8Array): Generator<string | Uint8Array> {
  if (chunk.length <= SLICE_CHARS) {
    yield chunk;
    return;
  }
  // Cutting anywhere is safe: the parser reassembles split UTF-8 sequences and surrogate pairs.
  for (let start = 0; start < chunk.length; start += SLICE_CHARS) {
    yield chunk.slice(start, start + SLICE_CHARS);
  }
}
