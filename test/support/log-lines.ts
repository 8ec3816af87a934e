// A pino logger whose lines a test reads back as objects, to assert what the service logs.
import { Writable } from "node:stream";
import { pino, type Logger, type Level } from "pino";

export function logLines(level: Level = "info"): { logger: Logger; lines: Record<string, any>[] } {
  const lines: Record<string, any>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level }, sink), lines };
}
