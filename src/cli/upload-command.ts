// switchyard upload --junit-paths <glob>… (contract 7.1): uploads JUnit reports with the run's metadata.
import type { Command } from "commander";
import { CliError, type CliContext } from "./io.ts";
import { findReports, type UploadSummary, uploadReports } from "./upload-client.ts";
import { addUploadOptions, type UploadOptions, uploadTarget } from "./upload-metadata.ts";

export function registerUploadCommand(program: Command, context: CliContext): void {
  addUploadOptions(
    program
      .command("upload")
      .description(
        "upload JUnit XML reports to Switchyard's test health (metadata from flags or the CI environment)",
      ),
    "required",
  ).action(async (options: UploadOptions) => {
    const target = await uploadTarget(options, process.cwd());
    const globs = options.junitPaths ?? [];
    const reports = await findReports({ globs, cwd: process.cwd() });
    if (reports.length === 0) throw new CliError(`no file matches --junit-paths ${globs.join(" ")}`);
    const summary = await uploadReports(target, reports);
    context.out(`${describeUpload(summary, reports.length)}\n`);
  });
}

export function describeUpload(summary: UploadSummary, reports: number): string {
  const files = `${reports} report${reports === 1 ? "" : "s"}`;
  const failures =
    summary.failures === 0
      ? "no failures"
      : `${summary.failures} failing test${summary.failures === 1 ? "" : "s"}, ${summary.quarantinedFailures} of them quarantined`;
  return `uploaded ${summary.testResults} test results from ${files}: ${failures}`;
}
