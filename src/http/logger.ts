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

/**
 * Where JSON lines go: written as soon as the previous write is done, off the request's path (pino flushes the rest
 * at exit). SonicBoom measures the last pending chunk's byte length on every line, which at its default chunk size
 * (16 KiB) cost 4 µs a line, most of a request line's cost; 2 KiB chunks cost a fraction of a µs more in writes.
 */
export function jsonLines(dest: number | string): DestinationStream {
  return pino.destination({ dest, sync: false, maxWrite: 2048 });
}
