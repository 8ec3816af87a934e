import type { Config } from "../config.ts";

/** What a command may touch: its output streams and the configuration, so tests can run it in-process. */
export interface CliContext {
  out: (text: string) => void;
  err: (text: string) => void;
  config: () => Config;
  now: () => number;
}

/** A failure the user can act on: printed without a stack, exit code 1. */
export class CliError extends Error {}
