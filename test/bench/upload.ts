// npm run bench:upload — the memory of the service while it stores a 400,000-result upload, sent as a user sends
// it: the service runs from the bundle `npm run build` writes, as the image runs it (SQLite), and `switchyard upload`'s client sends a 40 MiB JUnit report,
// which it cuts into requests under the 20 MiB body limit. The service's RSS is read from outside (/proc/<pid>): at
// idle, then its peak (VmHWM, reset just before the upload) and results/s. Two uploads are measured: the first of the
// suite (every test new) and the next (every test known, the steady state of CI). "Warm" is the RSS after a first
// upload of 10 results, which starts the report reader's thread and allocates the test key cache, once per process.
// GitHub is never contacted: the upload tells its default branch and CODEOWNERS.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { uploadReports } from "../../src/cli/upload-client.ts";
import type { UploadTarget } from "../../src/cli/upload-metadata.ts";
import { writeReport } from "./junit-report.ts";
import {
  benchDatabase,
  buildService,
  cpuMs,
  distCommand,
  memoryMiB,
  repo,
  startService,
  stop,
} from "./service-process.ts";

const MiB = 1024 * 1024;
const cases = Number(process.env.BENCH_UPLOAD_CASES ?? 400_000);

async function measureUpload(pid: number, target: UploadTarget, report: string) {
  // Writing 5 to clear_refs resets VmHWM to the current RSS: the peak read afterwards is the upload's.
  writeFileSync(`/proc/${pid}/clear_refs`, "5");
  const cpuBefore = cpuMs(pid);
  const began = performance.now();
  const summary = await uploadReports(target, [report]);
  const seconds = (performance.now() - began) / 1000;
  return {
    results: summary.testResults,
    requests: summary.uploads,
    seconds,
    cpuSeconds: (cpuMs(pid) - cpuBefore) / 1000,
    peak: memoryMiB(pid, "VmHWM"),
    after: memoryMiB(pid),
  };
}

async function main(): Promise<void> {
  buildService();
  const dir = mkdtempSync(join(tmpdir(), "switchyard-bench-upload-"));
  const { env, token } = await benchDatabase(join(dir, "bench.db"));
  const report = join(dir, "TEST-widgets.xml");
  const reportBytes = await writeReport(report, cases, 0.01);

  const { child: service, port } = await startService(distCommand, env);
  try {
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const pid = service.pid!;
    const idle = memoryMiB(pid);
    const target = (commit: number): UploadTarget => ({
      serviceUrl: `http://127.0.0.1:${port}`,
      token,
      metadata: {
        repo,
        org_url_slug: "acme",
        commit_sha: commit.toString(16).padStart(40, "0"),
        branch: "main",
        job_name: "bench",
        repo_root: "/ci/widgets",
        default_branch: "main",
        codeowners: "* @acme/core\n",
      },
    });
    // A first small upload starts what every later upload shares: the reader thread and the key cache.
    const small = join(dir, "TEST-small.xml");
    await writeReport(small, 10, 0.1);
    await uploadReports(target(99), [small]);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const warm = memoryMiB(pid);
    const first = await measureUpload(pid, target(1), report);
    const second = await measureUpload(pid, target(2), report);

    console.log("\nSwitchyard upload benchmark (service from dist, SQLite, loopback, this machine)");
    console.log(
      `report: ${cases.toLocaleString("en-US")} test cases, ${(reportBytes / MiB).toFixed(1)} MiB, sent by switchyard upload's client`,
    );
    console.log(
      `service RSS at idle (3 s after start): ${idle.toFixed(1)} MiB; warm (after a first upload of 10 results): ${warm.toFixed(1)} MiB`,
    );
    for (const [name, run] of [
      ["first upload (every test new)", first],
      ["next upload (every test known)", second],
    ] as const) {
      console.log(
        `${name}: ${run.results.toLocaleString("en-US")} results in ${run.requests} requests, ` +
          `${run.seconds.toFixed(1)} s = ${Math.round(run.results / run.seconds).toLocaleString("en-US")} results/s ` +
          `(service CPU ${run.cpuSeconds.toFixed(1)} s); service RSS peak ${run.peak.toFixed(1)} MiB ` +
          `= idle + ${(run.peak - idle).toFixed(1)} MiB = warm + ${(run.peak - warm).toFixed(1)} MiB, ${run.after.toFixed(1)} MiB after`,
      );
    }
  } finally {
    await stop(service);
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
