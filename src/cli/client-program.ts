// The commands a CI job runs against a Switchyard service over its API: upload, test, set-impacted-targets and queues. They
// need neither the database nor the service's configuration, and are all the installable package
// (@switchyard-ci/cli) holds.
import { Command, CommanderError } from "commander";
import { registerImpactedTargetsCommand } from "./impacted-targets-command.ts";
import { CliError, type ClientContext } from "./io.ts";
import { registerQueuesCommand } from "./queues-command.ts";
import { registerTestCommand } from "./test-command.ts";
import { registerUploadCommand } from "./upload-command.ts";

/** A `switchyard` program without commands yet, writing through `context`. */
export function newProgram(context: ClientContext, version: string): Command {
  return new Command("switchyard")
    .description("Switchyard: self-hosted merge queue and test-health service for GitHub")
    .version(version)
    .exitOverride()
    .configureOutput({ writeOut: context.out, writeErr: context.err });
}

export function registerClientCommands(program: Command, context: ClientContext): void {
  registerUploadCommand(program, context);
  registerTestCommand(program, context);
  registerImpactedTargetsCommand(program, context);
  registerQueuesCommand(program, context);
}

/** The installable tool: the client commands alone. */
export function buildClientProgram(context: ClientContext, version: string): Command {
  const program = newProgram(context, version);
  registerClientCommands(program, context);
  return program;
}

/** Runs `program` on `argv` (without node and script) and returns the process exit code. */
export async function runProgram(program: Command, argv: string[], context: ClientContext): Promise<number> {
  // Commander only applies these to commands created after them: every command gets them here.
  for (const command of program.commands) {
    command.exitOverride().configureOutput({ writeOut: context.out, writeErr: context.err });
    for (const sub of command.commands)
      sub.exitOverride().configureOutput({ writeOut: context.out, writeErr: context.err });
  }
  try {
    await program.parseAsync(argv, { from: "user" });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof CliError) {
      context.err(`error: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}
