// npm run bench:upload — ingestion throughput and the service's memory while it stores a 200,000-result JUnit upload
// (20.6 MiB), sent as a user sends it: the service runs from the bundle `npm run build` writes, in its own process
// (SQLite, default log level, output to a file), and `switchyard upload`'s client sends the report, cut into requests
// under the 20 MiB body limit. In the same run, in turns with the uploads, the baselines run in their own processes
// (bare-ingestion.ts): a bare saxes parse of the same report building its records, and a bare SQLite insert loop
// of the same rows into the service's schema. Two uploads are measured: the first after the start (every test new;
// it also fills the key cache and compiles the hot code) and the next (every test known, the steady state of CI).
// The service's RSS is read from outside (/proc/<pid>): at idle, its peak during each upload (VmHWM, reset just
// before), 5 s after and 35 s after. Each rate is also given per CPU second (the service's threads, the baseline's process),
// the figure to trust on a busy machine. BENCH_UPLOAD_CASES sets the report's size. The service inherits the
// environment: MALLOC_ARENA_MAX (glibc), which decides how much freed memory the process keeps, is printed.
// GitHub is never contacted: the upload tells its default branch and CODEOWNERS.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { uploadReports } from "../../src/cli/upload-client.ts";
import type { UploadTarget } from "../../src/cli/upload-metadata.ts";
import { writeReport } from "./junit-report.ts";
import {
  benchDatabase,
  buildService,
  root,
  cpuMs,
  distCommand,
  memoryMiB,
  repo,
  startService,
  stop,
} from "./service-process.ts";

const MiB = 1024 * 1024;
const cases = Number(process.env.BENCH_UPLOAD_CASES ?? 200_000);
/** The second look at the RSS after the uploads: time for V8 to shrink its heap once idle. */
const LATER_MS = 35_000;

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

/** Runs a baseline of bare-ingestion.ts in its own process. */
function bare(...args: string[]): { results: number; ms: number; cpuMs: number } {
  const output = execFileSync(
    process.execPath,
    ["--import", "tsx", "test/bench/bare-ingestion.ts", ...args],
    {
      cwd: root,
      encoding: "utf8",
    },
  );
  return JSON.parse(output.trim().split("\n").at(-1)!);
}

const perSecond = (results: number, ms: number) => Math.round((results / ms) * 1000);
const figure = (n: number) => n.toLocaleString("en-US");

async function main(): Promise<void> {
  buildService();
  const dir = mkdtempSync(join(tmpdir(), "switchyard-bench-upload-"));
  const { env, token } = await benchDatabase(join(dir, "bench.db"));
  const report = join(dir, "TEST-widgets.xml");
  const reportBytes = await writeReport(report, cases, 0.01);

  const { child: service, port } = await startService(distCommand, env, join(dir, "service.log"));
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
    // In turns: a baseline, an upload, a baseline, …, so that what else the machine does weighs on all alike. The
    // first upload is the first after the start: it includes filling the key cache.
    const parses = [bare("parse", report)];
    const first = await measureUpload(pid, target(1), report);
    const inserts = [bare("insert", report, `file:${join(dir, "bare-1.db")}`)];
    const second = await measureUpload(pid, target(2), report);
    parses.push(bare("parse", report));
    inserts.push(bare("insert", report, `file:${join(dir, "bare-2.db")}`));
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const settled = memoryMiB(pid);
    await new Promise((resolve) => setTimeout(resolve, LATER_MS - 5000));
    const later = memoryMiB(pid);

    const parseRate = median(parses.map((run) => perSecond(run.results, run.ms)));
    const parseCpuRate = median(parses.map((run) => perSecond(run.results, run.cpuMs)));
    const insertRate = median(inserts.map((run) => perSecond(run.results, run.ms)));
    const insertCpuRate = median(inserts.map((run) => perSecond(run.results, run.cpuMs)));
    console.log("\nSwitchyard upload benchmark (service from dist, SQLite, loopback, this machine)");
    console.log(
      `report: ${figure(cases)} test cases, ${(reportBytes / MiB).toFixed(1)} MiB, sent by switchyard upload's client; ` +
        `service: node dist/src/main.js, default log level, output to a file; glibc's malloc arenas: ` +
        `MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX ?? "unset (the default: one per thread, up to 8 per core)"}`,
    );
    console.log(
      `bare saxes parse building records (own process): ${figure(parseRate)} results/s ` +
        `(${figure(parseCpuRate)} per CPU second); runs ${parses.map((run) => run.ms.toFixed(0)).join(", ")} ms`,
    );
    console.log(
      `bare SQLite insert loop of the same rows into the service's schema (own process): ${figure(insertRate)} results/s ` +
        `(${figure(insertCpuRate)} per CPU second); runs ${inserts.map((run) => run.ms.toFixed(0)).join(", ")} ms`,
    );
    console.log(`service RSS at idle (3 s after start): ${idle.toFixed(1)} MiB`);
    for (const [name, run] of [
      ["first upload after start (every test new)", first],
      ["next upload (every test known)", second],
    ] as const) {
      const rate = run.results / run.seconds;
      const cpuRate = run.results / run.cpuSeconds;
      console.log(
        `${name}: ${figure(run.results)} results in ${run.requests} requests, ${run.seconds.toFixed(2)} s = ` +
          `${figure(Math.round(rate))} results/s = ${(rate / parseRate).toFixed(2)} of the bare parse; ` +
          `service CPU ${run.cpuSeconds.toFixed(2)} s = ${figure(Math.round(cpuRate))} results per CPU second = ` +
          `${(cpuRate / parseCpuRate).toFixed(2)} of the bare parse's; RSS peak ${run.peak.toFixed(1)} MiB = ` +
          `${(run.peak / idle).toFixed(2)}× idle, ${run.after.toFixed(1)} MiB just after`,
      );
    }
    console.log(
      `service RSS 5 s after the uploads: ${settled.toFixed(1)} MiB = ${(settled / idle).toFixed(2)}× idle; ` +
        `${LATER_MS / 1000} s after: ${later.toFixed(1)} MiB = ${(later / idle).toFixed(2)}× idle`,
    );
    console.log(
      `load average at the end (1, 5, 15 min): ${loadavg()
        .map((load) => load.toFixed(2))
        .join(", ")}`,
    );
  } finally {
    await stop(service);
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

await main();
