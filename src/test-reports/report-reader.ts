// Reading an upload's reports on a thread of their own (docs/performance.md#test-health). Parsing the
// XML, computing each test's id and summarising failures take as long as writing the results: on the thread that
// writes, they would add up; on a second thread they run while the previous batch is being written. The thread is
// started once per process and reads every upload, each over a channel of its own.
//
// Memory stays bounded on both sides: the reader is sent at most CHUNKS_AHEAD chunks of the reports that it has
// not parsed yet, and reads at most READ_AHEAD batches that ingestion has not taken yet.
import { MessageChannel, type MessagePort, Worker } from "node:worker_threads";
import { documentChunks, type JunitInput } from "./junit-documents.ts";
import { JunitParseError } from "./parsed-report.ts";
import type { ReadBatch, UploadIdentity } from "./report-batches.ts";

/** Batches the reader may have read ahead of ingestion. */
export const READ_AHEAD = 2;
/**
 * Chunks (of at most 64 KiB) sent ahead of the reader. The thread that writes answers the reader only between
 * batches, so the reader needs the input for several batches at hand (a batch of 500 test cases is about 50 KiB
 * of XML).
 */
const CHUNKS_AHEAD = 24;

/** What the reader thread is given for an upload, with the port to talk over. */
export interface ReadingJob extends UploadIdentity {
  port: MessagePort;
  batchSize: number;
  documentCount: number;
}

/** Messages to the reader: the next chunk of the documents, a document's end, a batch taken, or stop. */
export type ToReader =
  | { kind: "chunk"; chunk: string | Uint8Array }
  | { kind: "document-end" }
  | { kind: "taken" }
  | { kind: "cancel" };

/** A parse error as it crosses threads. */
export interface ParseFailure {
  documentIndex: number;
  line: number;
  column: number;
  reason: string;
}

/** Messages from the reader. */
export type FromReader =
  | { kind: "parsed" }
  | { kind: "batch"; batch: ReadBatch }
  | { kind: "done" }
  | { kind: "failed"; parseFailure: ParseFailure | null; message: string };

/**
 * Reads the documents, in order, as batches of at most `batchSize` test cases. Throws {@link JunitParseError} for a
 * malformed document, and whatever reading a document's chunks throws. Leaving the loop early stops the reader.
 */
export async function* readReports(
  documents: readonly JunitInput[],
  options: UploadIdentity & { batchSize: number },
): AsyncGenerator<ReadBatch> {
  const { port1: port, port2: readerPort } = new MessageChannel();
  const ready: ReadBatch[] = [];
  let finished = false;
  let failure: Error | undefined;
  let wake = () => {};
  const fail = (error: Error) => {
    failure ??= error;
    wake();
  };
  const supply = chunkSupplier(documents, port, fail);
  port.on("message", (message: FromReader) => {
    switch (message.kind) {
      case "parsed":
        supply.parsed();
        return;
      case "batch":
        ready.push(message.batch);
        break;
      case "done":
        finished = true;
        break;
      case "failed":
        fail(
          message.parseFailure === null
            ? new Error(`reading the reports failed: ${message.message}`)
            : parseError(message.parseFailure),
        );
        break;
    }
    wake();
  });
  const thread = useReaderThread();
  const stopWatching = thread.watch(fail);
  const job: Omit<ReadingJob, "port"> = { ...options, documentCount: documents.length };
  thread.worker.postMessage({ ...job, port: readerPort }, [readerPort]);
  supply.fill();
  try {
    for (;;) {
      // Batches are ingested in microtasks only (SQLite answers synchronously): without a turn of the event loop
      // between them, the reader's messages would wait until ingestion caught up with it.
      await new Promise((resolve) => setImmediate(resolve));
      while (ready.length === 0 && !finished && failure === undefined) {
        await new Promise<void>((resolve) => (wake = resolve));
      }
      if (failure !== undefined) throw failure;
      const batch = ready.shift();
      if (batch === undefined) return;
      yield batch;
      port.postMessage({ kind: "taken" } satisfies ToReader);
    }
  } finally {
    if (!finished) port.postMessage({ kind: "cancel" } satisfies ToReader);
    port.close();
    stopWatching();
    supply.close();
    releaseReaderThread(thread);
  }
}

/**
 * Sends the documents' chunks, in order, each document followed by its end, keeping CHUNKS_AHEAD of them ahead of
 * the reader: `fill()` sends as many as that allows, and `parsed()` is called each time the reader parsed one.
 */
function chunkSupplier(documents: readonly JunitInput[], port: MessagePort, fail: (error: Error) => void) {
  let index = 0;
  let chunks: AsyncGenerator<string | Uint8Array> | undefined;
  let ahead = 0;
  let sending = false;
  const send = async () => {
    sending = true;
    try {
      while (ahead < CHUNKS_AHEAD && index < documents.length) {
        chunks ??= documentChunks(documents[index] as JunitInput);
        const next = await chunks.next();
        if (next.done === true) {
          chunks = undefined;
          index++;
          port.postMessage({ kind: "document-end" } satisfies ToReader);
        } else if (typeof next.value === "string") {
          ahead++;
          port.postMessage({ kind: "chunk", chunk: next.value } satisfies ToReader);
        } else {
          ahead++;
          // A copy of its own, handed over without another copy: a stream's chunks often share a larger buffer.
          const chunk = new Uint8Array(next.value);
          port.postMessage({ kind: "chunk", chunk } satisfies ToReader, [chunk.buffer]);
        }
      }
    } catch (error) {
      fail(error instanceof Error ? error : new Error(String(error)));
    } finally {
      sending = false;
    }
  };
  const fill = () => {
    if (!sending) void send();
  };
  return {
    fill,
    parsed(): void {
      ahead--;
      fill();
    },
    /**
     * Closes the document being read (a file stream, say) when the upload ends before its end; without waiting, as
     * a document that stalls would only close once its pending chunk came.
     */
    close(): void {
      chunks?.return(undefined).catch(() => undefined);
    },
  };
}

function parseError(failure: ParseFailure): JunitParseError {
  return new JunitParseError(failure.documentIndex, failure.line, failure.column, failure.reason);
}

/**
 * The reader thread's heap is capped. It holds a few chunks and batches, but a batch may hold 20 MiB of failure
 * text (the most an API body carries), which the XML parser gathers whole before the bounds apply; a hostile
 * stream that goes beyond ends the thread (the uploads being read fail), never the process. Its young generation,
 * where parsing's garbage dies, is kept small: with batches of 500 test cases, at 8 MiB rather than 16 the process
 * peaked 15 to 25 MiB lower during an upload of 200,000 results, for no CPU time that the noise of a busy machine
 * showed (at 16 rather than 32, with batches of 2,000: 20 to 25 MiB lower, about 5% more CPU). The old generation's cap (64 MiB, three
 * times the largest batch) also makes V8 collect it before it grows far: at 256 MiB it held garbage for tens of MiB.
 */
const READER_HEAP_LIMITS = { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 64 };

/** The process's reader thread, and the uploads it reads, told when it dies. */
interface ReaderThread {
  worker: Worker;
  /** Settles once the thread has loaded its code, or has died. */
  ready: Promise<void>;
  watch(onDeath: (error: Error) => void): () => void;
}

let current: ReaderThread | undefined;

/**
 * The reader thread is stopped once no upload has used it for this long: after a large upload its heap holds tens
 * of MiB (up to its caps) that would otherwise stay with the process until the next upload. Starting it again costs
 * the next upload a tenth of a second; CI's uploads of one build come closer together than this.
 */
export const READER_IDLE_MS = 30_000;
/** Uploads being read, and the timer that stops the thread once there are none. */
let readings = 0;
let retirement: NodeJS.Timeout | undefined;

function useReaderThread(): ReaderThread {
  clearTimeout(retirement);
  readings++;
  return readerThread();
}

function releaseReaderThread(thread: ReaderThread): void {
  if (--readings > 0) return;
  retirement = setTimeout(() => {
    if (readings !== 0 || current !== thread) return;
    // Forgotten first, so that an upload arriving while it stops starts a new thread instead of joining this one.
    current = undefined;
    void thread.worker.terminate();
  }, READER_IDLE_MS);
  retirement.unref();
}

/**
 * Starts the reader thread unless it runs, so that the next upload does not wait for it to load (a tenth of a
 * second or more); resolves once it has. The service leaves it to the first upload, to stay small while idle.
 */
export async function startReportReader(): Promise<void> {
  await readerThread().ready;
}

/** Whether the reader thread runs: from the first upload until it has been idle for READER_IDLE_MS. */
export function readerThreadRunning(): boolean {
  return current !== undefined;
}

/** Stops the reader thread; uploads being read fail, and the next upload starts it again. */
export async function stopReportReader(): Promise<void> {
  await current?.worker.terminate();
}

function readerThread(): ReaderThread {
  if (current !== undefined) return current;
  const worker = spawnReader();
  // The thread is idle between uploads: it must not keep the process alive.
  worker.unref();
  const watchers = new Set<(error: Error) => void>();
  const thread: ReaderThread = {
    worker,
    ready: new Promise((resolve, reject) => {
      worker.once("message", () => resolve());
      watchers.add(reject);
    }),
    watch(onDeath) {
      watchers.add(onDeath);
      return () => watchers.delete(onDeath);
    },
  };
  const die = (error: Error) => {
    if (current === thread) current = undefined;
    for (const onDeath of watchers) onDeath(error);
  };
  // Whoever waits for the thread learns of its death; the promise itself must not count as an unhandled rejection.
  thread.ready.catch(() => undefined);
  worker.on("error", (error) =>
    die(new Error(`the report reader failed: ${error.message}`, { cause: error })),
  );
  worker.on("exit", (code) => die(new Error(`the report reader stopped (exit code ${code})`)));
  current = thread;
  return thread;
}

function spawnReader(): Worker {
  const fromSources = import.meta.url.endsWith(".ts");
  const entry = new URL(`./report-reader-thread.${fromSources ? "ts" : "js"}`, import.meta.url);
  if (!fromSources) return new Worker(entry, { resourceLimits: READER_HEAP_LIMITS });
  // Run from the TypeScript sources (npm start, vitest), the thread registers tsx's loader before loading its
  // entry: on Node 20 the loader flags a worker inherits do not reach its module loader.
  const tsx = import.meta.resolve("tsx/esm/api");
  const bootstrap = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(bootstrap, { eval: true, resourceLimits: READER_HEAP_LIMITS });
}
