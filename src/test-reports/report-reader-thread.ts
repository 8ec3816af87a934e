// The reader thread's side of report-reader.ts: for each upload it is given, it parses the documents' chunks as
// they are sent, acknowledging each, and sends batches of tests, never more than READ_AHEAD ahead of ingestion.
import { type MessagePort, parentPort } from "node:worker_threads";
import { JunitParseError } from "./parsed-report.ts";
import { parseJunitDocumentInBatches } from "./junit-documents.ts";
import { readBatch, transferables } from "./report-batches.ts";
import { type FromReader, READ_AHEAD, type ReadingJob, type ToReader } from "./report-reader.ts";

class Cancelled extends Error {}

/** One upload's channel: the chunks and document ends sent, in order, and how many batches ingestion has taken. */
class Channel {
  private readonly input: ToReader[] = [];
  private sent = 0;
  private taken = 0;
  private cancelled = false;
  private wake = () => {};

  constructor(private readonly port: MessagePort) {
    port.on("message", (message: ToReader) => {
      if (message.kind === "taken") this.taken++;
      else if (message.kind === "cancel") this.cancelled = true;
      else this.input.push(message);
      this.wake();
    });
    // Ingestion went away without a word (its side closed the channel): nothing more will come.
    port.on("close", () => {
      this.cancelled = true;
      this.wake();
    });
  }

  send(message: FromReader): void {
    this.port.postMessage(message, message.kind === "batch" ? transferables(message.batch) : []);
  }

  /** The chunks of the document being read; each parsed one is acknowledged, so that another is sent. */
  async *chunks(): AsyncGenerator<string | Uint8Array> {
    for (;;) {
      const message = await this.next(() => this.input.shift());
      if (message.kind === "document-end") return;
      if (message.kind !== "chunk") continue;
      yield message.chunk;
      this.send({ kind: "parsed" });
    }
  }

  /** Sends a batch once fewer than READ_AHEAD are waiting to be taken. */
  async sendBatch(message: Extract<FromReader, { kind: "batch" }>): Promise<void> {
    await this.next(() => (this.sent - this.taken < READ_AHEAD ? true : undefined));
    this.sent++;
    this.send(message);
  }

  close(): void {
    this.port.close();
  }

  private async next<T>(ready: () => T | undefined): Promise<T> {
    for (;;) {
      if (this.cancelled) throw new Cancelled();
      const value = ready();
      if (value !== undefined) return value;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }
}

async function read(job: ReadingJob): Promise<void> {
  const channel = new Channel(job.port);
  try {
    let seq = 0;
    for (let documentIndex = 0; documentIndex < job.documentCount; documentIndex++) {
      const batches = parseJunitDocumentInBatches(channel.chunks(), {
        documentIndex,
        batchSize: job.batchSize,
      });
      for await (const testCases of batches) {
        const batch = readBatch(testCases, job, seq);
        seq += batch.seqs.length;
        await channel.sendBatch({ kind: "batch", batch });
      }
    }
    channel.send({ kind: "done" });
  } catch (error) {
    if (error instanceof Cancelled) return;
    const parseFailure =
      error instanceof JunitParseError
        ? { documentIndex: error.documentIndex, line: error.line, column: error.column, reason: error.reason }
        : null;
    channel.send({
      kind: "failed",
      parseFailure,
      message: error instanceof Error ? error.message : String(error),
    });
  } finally {
    channel.close();
  }
}

parentPort?.on("message", (job: ReadingJob) => void read(job));
// Loaded: the uploads' messages are handled from now on.
parentPort?.postMessage("ready");
