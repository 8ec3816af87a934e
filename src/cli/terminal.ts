// The process's own streams as a ClientContext: what the `switchyard` executables write to.
import type { ClientContext } from "./io.ts";

export function terminalContext(): ClientContext {
  const context: ClientContext = {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    now: Date.now,
  };
  // Progress is redrawn in place with a carriage return, which only a terminal shows as intended.
  if (process.stderr.isTTY) context.progress = (line) => process.stderr.write(`\r\x1b[2K${line}`);
  return context;
}
