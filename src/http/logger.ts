// The service's logger: pino, writing JSON lines (one object a line, for a log store) or, for a person at a
// terminal, pino-pretty's coloured lines. Which one is the configuration's LOG_FORMAT (config.ts).
import { pino, type DestinationStream, type Logger } from "pino";
import type { LogFormat, LogLevel } from "../config.ts";

export interface LoggerOptions {
  level: LogLevel;
  format: LogFormat;
  /** Where the lines go; standard output when unset. */
  destination?: DestinationStream;
}

export async function createLogger({ level, format, destination }: LoggerOptions): Promise<Logger> {
  const stream =
    destination ??
    (format === "pretty"
      ? // Loaded only for a person at a terminal: a service writing JSON never pays for it.
        (await import("pino-pretty")).PinoPretty({ sync: true, ignore: "pid,hostname" })
      : jsonLines(1));
  return pino({ level }, stream);
}

/** A batch is written once it holds this many characters (about as many bytes: the lines are mostly ASCII)… */
const batchCharacters = 16 * 1024;
/** …or this long after its first line, so that a quiet service's lines still show up at once to a person. */
const batchDelayMs = 100;

/**
 * Where JSON lines go: gathered into batches, each written with one system call (docs/performance.md#request-logging).
 * A write per line cost more than building the line, 20-30 µs a request on a busy machine. A batch is written
 * synchronously, as pino's own standard output is: handing each batch to libuv's thread pool (an asynchronous write)
 * cost about 1 µs a line more in CPU than the write itself, in thread wake-ups. As with pino's default, a reader that
 * stops reading (a full pipe) holds the service up rather than letting unwritten lines fill its memory. The lines
 * still pending when the process exits are written before it does; a process killed outright (SIGKILL) loses at
 * most the last batchDelayMs of them.
 */
export function jsonLines(dest: number | string): DestinationStream {
  return new LineBatches(pino.destination({ dest, sync: true }));
}

/** Every batching destination of the process, held weakly (a logger dropped is not kept for this), written out at exit. */
const unwrittenAtExit = new Set<WeakRef<LineBatches>>();
process.once("exit", () => {
  for (const batches of unwrittenAtExit) batches.deref()?.writeOut();
});

class LineBatches implements DestinationStream {
  #lines: string[] = [];
  #characters = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly file: ReturnType<typeof pino.destination>) {
    unwrittenAtExit.add(new WeakRef(this));
  }

  /** Writes what is pending: the process is about to exit. The write is synchronous, so the file has it on return. */
  writeOut(): void {
    this.#writeBatch();
  }

  write(line: string): void {
    this.#lines.push(line);
    this.#characters += line.length;
    if (this.#characters >= batchCharacters) this.#writeBatch();
    else this.#timer ??= setTimeout(() => this.#writeBatch(), batchDelayMs).unref();
  }

  /** Writes what is pending; pino's `logger.flush(callback)` calls it. */
  flush(callback?: (error?: Error) => void): void {
    this.#writeBatch();
    this.file.flush(callback);
  }

  #writeBatch(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#lines.length === 0) return;
    const batch = this.#lines.join("");
    this.#lines = [];
    this.#characters = 0;
    this.file.write(batch);
  }
}
