// The streamed strings of a request body (json-scanner.ts), kept in a temporary file rather than in memory: an
// upload's reports are read back from it in small chunks once the whole body has arrived and been validated. The
// file is unlinked as soon as it is opened, so that it goes away with its handle, or with the process.
import { randomUUID } from "node:crypto";
import { type FileHandle, open, unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Bytes gathered before they are written, and read back at a time. */
const CHUNK_BYTES = 256 * 1024;

/** One string of the spool: its UTF-8 bytes, read back in chunks each time it is iterated. */
export interface SpooledString extends AsyncIterable<Uint8Array> {
  readonly byteLength: number;
}

export class StringSpool {
  private handle: Promise<FileHandle> | undefined;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes written or pending. */
  private size = 0;
  private start = 0;
  private closed = false;

  /** Whether enough is pending that the writer should wait for flush() before appending more. */
  get full(): boolean {
    return this.pendingBytes >= CHUNK_BYTES;
  }

  /** A string begins: the text appended until end() is its. */
  begin(): void {
    this.start = this.size;
  }

  append(text: string): void {
    const bytes = Buffer.from(text, "utf8");
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    this.size += bytes.length;
  }

  /** The string begun last ends. */
  end(): SpooledString {
    const start = this.start;
    const byteLength = this.size - start;
    return { byteLength, [Symbol.asyncIterator]: () => this.read(start, byteLength) };
  }

  /** Writes what is pending. */
  async flush(): Promise<void> {
    if (this.pendingBytes === 0) return;
    const buffers = this.pending;
    const position = this.size - this.pendingBytes;
    this.pending = [];
    this.pendingBytes = 0;
    const file = await this.file();
    await file.writev(buffers, position);
  }

  /** Closes the file; the strings can no longer be read. */
  async close(): Promise<void> {
    this.closed = true;
    this.pending = [];
    await (await this.handle?.catch(() => undefined))?.close();
  }

  private file(): Promise<FileHandle> {
    this.handle ??= (async () => {
      const path = join(tmpdir(), `switchyard-body-${randomUUID()}`);
      const handle = await open(path, "wx+", 0o600);
      await unlink(path);
      return handle;
    })();
    return this.handle;
  }

  private async *read(start: number, byteLength: number): AsyncGenerator<Uint8Array> {
    for (let position = start; position < start + byteLength;) {
      if (this.closed) throw new Error("the request body's spool is closed");
      const file = await this.file();
      const length = Math.min(CHUNK_BYTES, start + byteLength - position);
      const { bytesRead, buffer } = await file.read(Buffer.allocUnsafe(length), 0, length, position);
      if (bytesRead === 0) throw new Error("the request body's spool ended early");
      position += bytesRead;
      yield buffer.subarray(0, bytesRead);
    }
  }
}
