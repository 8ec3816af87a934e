// The `switchyard` command line tool of this repository: the client commands, and those run on the server's machine
// (tokens, migrations, the simulator), which read DATABASE_URL like the server.
import type { Command } from "commander";
import { ConfigError } from "../config.ts";
import { newProgram, registerClientCommands, runProgram } from "./client-program.ts";
import type { CliContext } from "./io.ts";
import { registerMigrateCommand } from "./migrate-command.ts";
import { registerSimulateCommand } from "./simulate-command.ts";
import { registerTokenCommands } from "./token-commands.ts";
import packageJson from "../../package.json" with { type: "json" };

export function buildProgram(context: CliContext): Command {
  const program = newProgram(context, packageJson.version);
  registerTokenCommands(program, context);
  registerMigrateCommand(program, context);
  registerClientCommands(program, context);
  registerSimulateCommand(program, context);
  return program;
}

/** Runs the tool on `argv` (without node and script) and returns the process exit code. */
export async function runCli(argv: string[], context: CliContext): Promise<number> {
  try {
    return await runProgram(buildProgram(context), argv, context);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    context.err(`error: ${error.message}\n`);
    return 1;
  }
}
