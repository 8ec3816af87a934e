// switchyard upload --junit-paths <glob>… (docs/test-health.md#uploading-results-from-ci): uploads JUnit reports with the run's metadata.
import type { Command } from "commander";
import { CliError, type ClientContext } from "./io.ts";
import { findReports, type UploadSummary, uploadReports } from "./upload-client.ts";
import { addUploadOptions, type UploadOptions, uploadTarget } from "./upload-metadata.ts";
import { progressLine } from "./upload-progress.ts";

export function registerUploadCommand(program: Command, context: ClientContext): void {
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
    const progress = progressLine(context);
    try {
      const summary = await uploadReports(target, reports, progress?.update);
      progress?.done();
      context.out(`${describeUpload(summary, reports.length)}\n`);
      context.output?.("test-results", String(summary.testResults));
      context.output?.("failures", String(summary.failures));
      context.output?.("quarantined-failures", String(summary.quarantinedFailures));
    } catch (error) {
      progress?.done();
      throw error;
    }
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
