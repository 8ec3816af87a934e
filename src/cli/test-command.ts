// switchyard test -- <command…> (docs/test-health.md#uploading-results-from-ci): runs a test command, uploads the JUnit reports it wrote, and exits 0
// when the command failed only because of quarantined tests. Whatever goes wrong with the upload (no service, no
// token, no reports), the command's own exit code stands: the wrapper never makes a build greener or redder by
// failing itself.
import { spawn } from "node:child_process";
import { constants } from "node:os";
import { type Command, CommanderError } from "commander";
import type { ClientContext } from "./io.ts";
import { DEFAULT_REPORT_GLOBS, findReports, type UploadSummary, uploadReports } from "./upload-client.ts";
import { describeUpload } from "./upload-command.ts";
import { addUploadOptions, type UploadOptions, uploadTarget } from "./upload-metadata.ts";
import { progressLine } from "./upload-progress.ts";

/** How many unquarantined failures are named before "and N more". */
const FAILURES_LISTED = 20;

interface CommandResult {
  exitCode: number;
  /** The signal that ended the command, if one did. */
  signal: NodeJS.Signals | null;
}

export function registerTestCommand(program: Command, context: ClientContext): void {
  addUploadOptions(
    program
      .command("test")
      .description(
        "run a test command, upload its JUnit reports, and exit 0 if it failed only because of quarantined tests",
      )
      .argument(
        "<command...>",
        "the test command and its arguments, after -- (e.g. switchyard test -- npm test)",
      ),
    "optional",
  ).action(async (command: string[], options: UploadOptions) => {
    const startedAt = context.now();
    const result = await runCommand(command, context);
    const exitCode =
      result.signal === null ? await verdict(result.exitCode, startedAt, options, context) : result.exitCode;
    if (exitCode !== 0) throw new CommanderError(exitCode, "switchyard.test", "");
  });
}

/** Runs the command with this process's terminal, passing on the signals that would stop this process. */
function runCommand([program = "", ...args]: string[], context: ClientContext): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = spawn(program, args, { stdio: "inherit" });
    const signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    for (const signal of signals) process.on(signal, forward);
    const done = (result: CommandResult) => {
      for (const signal of signals) process.off(signal, forward);
      resolve(result);
    };
    child.once("error", (error) => {
      context.err(`switchyard: cannot run ${program}: ${error.message}\n`);
      // The shell's code for a command that cannot be found or run.
      done({ exitCode: 127, signal: null });
    });
    child.once("exit", (code, signal) => {
      done({ exitCode: code ?? 128 + (signal === null ? 0 : (constants.signals[signal] ?? 0)), signal });
    });
  });
}

async function verdict(exitCode: number, startedAt: number, options: UploadOptions, context: ClientContext) {
  const keep = (why: string) => {
    context.err(`switchyard: ${why}; keeping the command's exit code ${exitCode}\n`);
    return exitCode;
  };
  let summary: UploadSummary;
  let reportCount: number;
  const progress = progressLine(context);
  try {
    const target = await uploadTarget(options, process.cwd());
    // The results' time is when the tests started, unless the flag says otherwise.
    target.metadata.started_at ??= new Date(startedAt).toISOString();
    const reports = await findReports({
      globs: options.junitPaths ?? DEFAULT_REPORT_GLOBS,
      cwd: process.cwd(),
      modifiedSince: startedAt,
      junitOnly: options.junitPaths === undefined,
    });
    if (reports.length === 0) return keep("the command wrote no JUnit report, so nothing was uploaded");
    reportCount = reports.length;
    summary = await uploadReports(target, reports, progress?.update);
  } catch (error) {
    progress?.done();
    return keep((error as Error).message);
  }
  progress?.done();
  context.err(`switchyard: ${describeUpload(summary, reportCount)}\n`);
  if (exitCode === 0) return 0;
  if (summary.failures > 0 && summary.unquarantinedFailures.length === 0) {
    context.err(`switchyard: every failing test is quarantined: exiting 0 instead of ${exitCode}\n`);
    return 0;
  }
  const listed = summary.unquarantinedFailures.slice(0, FAILURES_LISTED);
  for (const failure of listed) {
    context.err(
      `switchyard: failed, not quarantined: ${failure.classname} ${failure.name} (${failure.test_id})\n`,
    );
  }
  const more = summary.unquarantinedFailures.length - listed.length;
  if (more > 0) context.err(`switchyard: … and ${more} more\n`);
  return exitCode;
}
