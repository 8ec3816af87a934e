import type { Config } from "../config.ts";

/** What a client command (upload, test, set-impacted-targets) may touch, so tests can run it in-process. */
export interface ClientContext {
  out: (text: string) => void;
  err: (text: string) => void;
  now: () => number;
  /** Shows a line of progress in place; absent unless stderr is a terminal (CI logs get no progress noise). */
  progress?: (line: string) => void;
  /** Keeps a result by name for a caller that passes them on: the GitHub Action writes them as step outputs. */
  output?: (name: string, value: string) => void;
}

/** What a command run on the server's machine may also touch: the service's configuration. */
export interface CliContext extends ClientContext {
  config: () => Config;
}

/** A failure the user can act on: printed without a stack, exit code 1. */
export class CliError extends Error {}
