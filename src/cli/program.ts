// The `switchyard` command line tool: every command reads DATABASE_URL (or the service URL) like the server.
import { Command, CommanderError } from "commander";
import { ConfigError } from "../config.ts";
import { CliError, type CliContext } from "./io.ts";
import { registerMigrateCommand } from "./migrate-command.ts";
import { registerSimulateCommand } from "./simulate-command.ts";
import { registerTestCommand } from "./test-command.ts";
import { registerTokenCommands } from "./token-commands.ts";
import { registerUploadCommand } from "./upload-command.ts";
import packageJson from "../../package.json" with { type: "json" };

export function buildProgram(context: CliContext): Command {
  const program = new Command("switchyard")
    .description("Switchyard: self-hosted merge queue and test-health service for GitHub")
    .version(packageJson.version)
    .exitOverride()
    .configureOutput({ writeOut: context.out, writeErr: context.err });
  registerTokenCommands(program, context);
  registerMigrateCommand(program, context);
  registerUploadCommand(program, context);
  registerTestCommand(program, context);
  registerSimulateCommand(program, context);
  for (const command of program.commands) {
    command.exitOverride().configureOutput({ writeOut: context.out, writeErr: context.err });
    for (const sub of command.commands)
      sub.exitOverride().configureOutput({ writeOut: context.out, writeErr: context.err });
  }
  return program;
}

/** Runs the tool on `argv` (without node and script) and returns the process exit code. */
export async function runCli(argv: string[], context: CliContext): Promise<number> {
  const program = buildProgram(context);
  try {
    await program.parseAsync(argv, { from: "user" });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof CliError || error instanceof ConfigError) {
      context.err(`error: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}
