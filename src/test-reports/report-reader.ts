// Reading an upload's reports (docs/performance.md#test-health): each document is parsed as its chunks arrive and
// handed to ingestion in batches of tests, on the thread that stores them. Parsing on a thread of its own cost more
// than it saved: the batches' and chunks' messages, a second heap to collect and the isolate's own memory, where the
// CPU of the parse and of the inserts adds up either way.
//
// Memory stays bounded: a document is read a chunk at a time (documentChunks), and the next chunk is only read once
// ingestion has taken the batches of the previous one. The service's other requests wait for one batch at most: a
// chunk read from the upload's file holds several, and SQLite answers synchronously, so without a turn of the event
// loop per batch they would wait for a whole chunk's parse and inserts.
import { parseJunitDocumentInBatches, type JunitInput } from "./junit-documents.ts";
import { readBatch, type ReadBatch, type UploadIdentity } from "./report-batches.ts";

/**
 * Reads the documents, in order, as batches of at most `batchSize` test cases. Throws JunitParseError for a
 * malformed document, and whatever reading a document's chunks throws. Leaving the loop early closes the document
 * being read (a file stream, say).
 */
export async function* readReports(
  documents: readonly JunitInput[],
  options: UploadIdentity & { batchSize: number },
): AsyncGenerator<ReadBatch> {
  // Attempts are numbered across the upload's documents: re-runs keep their order.
  let seq = 0;
  for (const [documentIndex, document] of documents.entries()) {
    const batches = parseJunitDocumentInBatches(document, { documentIndex, batchSize: options.batchSize });
    for await (const testCases of batches) {
      await new Promise((resolve) => setImmediate(resolve));
      const batch = readBatch(testCases, options, seq);
      seq += batch.seqs.length;
      yield batch;
    }
  }
}
