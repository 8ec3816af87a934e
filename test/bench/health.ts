// npm run bench:health — test-health ingestion and listings on SQLite, with generated data:
//  1. ingestion throughput of a 15 MiB JUnit report of 150,000 test cases, streamed from a file: its first upload
//     (every test new) and three more (every test known, the steady state of CI), wall-clock and CPU time;
//  2. the memory of a first upload of that report and of ones twice and four times its size, each in a fresh
//     process;
//  3. p50/p95 latency of each listing endpoint over HTTP with 1,000,000 stored results over 20,000 tests.
// GitHub is never contacted: the repository is known, and its default branch and CODEOWNERS come from a stub.
import { execFileSync } from "node:child_process";
import { createReadStream, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { apiHandler, buildApi } from "../../src/http-server.ts";
import type { EdgeDependencies } from "../../src/http/dependencies.ts";
import { httpEdgePorts } from "../../src/edge-ports.ts";
import { loadConfig } from "../../src/config.ts";
import { parseCodeowners } from "../../src/test-health/index.ts";
import { ingestUpload } from "../../src/test-health-use-cases/ingestion.ts";
import { startReportReader } from "../../src/test-reports/report-reader.ts";
import type { RepositoryFacts } from "../../src/test-health-use-cases/checkout-facts.ts";
import { newId } from "../../src/store/ids.ts";
import { openMigratedDatabase, type Store } from "../../src/store/database.ts";
import { rememberRepository, type Repository } from "../../src/store/repositories.ts";
import { createToken } from "../../src/store/tokens.ts";
import { random, reportChunks, writeReport } from "./junit-report.ts";

const MiB = 1024 * 1024;
const HOUR = 3600 * 1000;
const DAY = 24 * HOUR;
const repoRef = { host: "github.com", owner: "acme", name: "widgets" };
const facts: RepositoryFacts = {
  defaultBranch: async () => "main",
  codeowners: async () =>
    parseCodeowners(
      "* @acme/core\nsrc/module0*/ @acme/widgets\nsrc/module1*/ @acme/gadgets @octocat\n*.spec.ts @acme/qa\n",
    ),
};

const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;
const rateOf = (results: number, ms: number) =>
  `${Math.round((results / ms) * 1000).toLocaleString("en-US")} results/s`;

interface IngestionMeasure {
  /** Wall-clock and CPU milliseconds of each upload (the CPU time does not depend on what else the machine runs). */
  runs: { ms: number; cpuMs: number; results: number; failures: number }[];
  rssBefore: number;
  peakRss: number;
  /** The largest heap still in use after a full collection, sampled during the upload (memory runs only). */
  peakLiveHeap: number;
}

/**
 * Child process: ingests the report at `path` `uploads` times into a fresh database and prints what it measured.
 * In a memory run a full collection runs every 100 ms before the heap is sampled, so that the figures show what the
 * upload holds rather than how lazily V8 collects (it lets garbage pile up to hundreds of MiB before a full
 * collection); that slows the upload down, so throughput is measured in separate runs.
 */
async function ingestionChild(
  path: string,
  databaseUrl: string,
  uploads: number,
  memory: boolean,
): Promise<void> {
  const gc = globalThis.gc ?? (() => undefined);
  const store = await openMigratedDatabase(databaseUrl);
  const repository = await rememberRepository(store.db, { ...repoRef, installationId: 1 }, Date.now());
  // As the service does when it starts.
  await startReportReader();
  gc();
  const rssBefore = process.memoryUsage().rss;
  let peakLiveHeap = process.memoryUsage().heapUsed;
  const sampler = memory
    ? setInterval(() => {
        gc();
        peakLiveHeap = Math.max(peakLiveHeap, process.memoryUsage().heapUsed);
      }, 100)
    : undefined;
  const runs: IngestionMeasure["runs"] = [];
  for (let upload = 0; upload < uploads; upload++) {
    const began = performance.now();
    const cpuBefore = process.cpuUsage();
    const outcome = await ingestUpload(store, {
      repository,
      id: newId(),
      commitSha: (upload + 1).toString(16).padStart(40, "0"),
      branch: "main",
      prNumber: null,
      jobName: "bench",
      variant: "",
      runUrl: null,
      repoRoot: null,
      startedAt: null,
      documents: [createReadStream(path, { highWaterMark: 64 * 1024 })],
      stableBranches: new Set(["main"]),
      now: Date.now(),
    });
    const ms = performance.now() - began;
    const cpu = process.cpuUsage(cpuBefore);
    runs.push({
      ms,
      cpuMs: (cpu.user + cpu.system) / 1000,
      results: outcome.testResults,
      failures: outcome.failures,
    });
  }
  clearInterval(sampler);
  const peakRss = process.resourceUsage().maxRSS * 1024;
  await store.close();
  const measure: IngestionMeasure = { runs, rssBefore, peakRss, peakLiveHeap };
  process.stdout.write(JSON.stringify(measure));
}

function runIngestionChild(path: string, dir: string, uploads: number, mode: "throughput" | "memory") {
  const databaseUrl = `file:${join(dir, `ingest-${newId()}.db`)}`;
  const output = execFileSync(
    process.execPath,
    [
      "--expose-gc",
      "--import",
      "tsx",
      import.meta.filename,
      "ingest",
      path,
      databaseUrl,
      String(uploads),
      mode,
    ],
    { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], maxBuffer: 10 * MiB },
  );
  return JSON.parse(output) as IngestionMeasure;
}

/**
 * 1,000,000 results over 20,000 tests: 50 uploads of the whole suite over the last 14 days, on main and on PR
 * branches (re-run on the same commit now and then); 3% of the tests are flaky (fail 1 run in 5), 0.5% broken.
 */
async function storeMillionResults(store: Store, repository: Repository): Promise<number> {
  const tests = 20_000;
  const uploads = 50;
  const next = random(42);
  const flaky = (index: number) => index % 100 < 3;
  const broken = (index: number) => index % 200 === 150;
  const now = Date.now();
  let stored = 0;
  for (let upload = 0; upload < uploads; upload++) {
    const startedAt = now - 14 * DAY + Math.round((upload + 0.5) * ((14 * DAY) / uploads));
    const onMain = upload % 3 !== 2;
    // Every fifth upload re-runs the commit of the one before, as a retried CI job does.
    const commit = (upload % 5 === 4 ? upload - 1 : upload).toString(16).padStart(40, "c");
    const report = [
      ...reportChunks(tests, (index) => (broken(index) ? upload >= 30 : flaky(index) && next() < 0.2)),
    ].join("");
    const outcome = await ingestUpload(store, {
      repository,
      id: newId(),
      commitSha: commit,
      branch: onMain ? "main" : `feature/${upload}`,
      prNumber: onMain ? null : 1000 + upload,
      jobName: "test",
      variant: "",
      runUrl: null,
      repoRoot: null,
      startedAt,
      documents: [report],
      stableBranches: new Set(["main"]),
      now: startedAt + 10 * 60 * 1000,
    });
    stored += outcome.testResults;
  }
  return stored;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function measure(label: string, requests: number, request: (index: number) => Promise<Response>) {
  const latencies: number[] = [];
  for (let index = 0; index < requests + 10; index++) {
    const began = performance.now();
    const response = await request(index);
    const body = await response.text();
    if (response.status !== 200) throw new Error(`${label}: ${response.status} ${body}`);
    // The first requests warm the JIT and the caches; they are not counted.
    if (index >= 10) latencies.push(performance.now() - began);
  }
  latencies.sort((a, b) => a - b);
  return `${label.padEnd(58)} p50 ${percentile(latencies, 50).toFixed(1).padStart(5)} ms   p95 ${percentile(latencies, 95).toFixed(1).padStart(5)} ms   (${requests} requests)`;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-bench-health-"));
  try {
    console.log("generating reports…");
    const report = join(dir, "report-150k.xml");
    const reportBytes = await writeReport(report, 150_000, 0.01);
    const doubleReport = join(dir, "report-300k.xml");
    const doubleBytes = await writeReport(doubleReport, 300_000, 0.01);
    const quadrupleReport = join(dir, "report-600k.xml");
    const quadrupleBytes = await writeReport(quadrupleReport, 600_000, 0.01);

    console.log("ingesting (each scenario in a fresh process and database)…");
    const throughput = runIngestionChild(report, dir, 4, "throughput");
    const memory = [
      { bytes: reportBytes, ...runIngestionChild(report, dir, 1, "memory") },
      { bytes: doubleBytes, ...runIngestionChild(doubleReport, dir, 1, "memory") },
      { bytes: quadrupleBytes, ...runIngestionChild(quadrupleReport, dir, 1, "memory") },
    ];

    console.log("storing 1,000,000 results over 20,000 tests…");
    const store = await openMigratedDatabase(`file:${join(dir, "listings.db")}`);
    const repository = await rememberRepository(store.db, { ...repoRef, installationId: 1 }, Date.now());
    const generationBegan = performance.now();
    const stored = await storeMillionResults(store, repository);
    const generationMs = performance.now() - generationBegan;
    const { token } = await createToken(store.db, {
      organization: "acme",
      owners: [],
      host: "github.com",
      now: Date.now(),
    });

    const config = loadConfig({ DATABASE_URL: "file::memory:", PUBLIC_URL: "https://switchyard.example" });
    const deps = {
      ...httpEdgePorts(store),
      config,
      installations: { findInstallation: async () => null },
      // The merge queue endpoints are not measured here.
      github: {} as EdgeDependencies["github"],
      queues: {} as EdgeDependencies["queues"],
      submissionReads: {} as EdgeDependencies["submissionReads"],
      repositoryFacts: facts,
      log: { error: () => undefined } as unknown as EdgeDependencies["log"],
      clock: Date.now,
    } satisfies EdgeDependencies;
    const api = await buildApi(deps, "bench");
    const handler = apiHandler(api);
    const server = createServer((req, res) => {
      if (!handler(req, res)) res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/flaky-tests`;
    const post = (path: string, body: Record<string, unknown>) =>
      fetch(`${url}/${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-token": token },
        body: JSON.stringify({ repo: repoRef, org_url_slug: "acme", ...body }),
      });
    const walker = (path: string, body: Record<string, unknown>, pageSize: number) => {
      let pageToken = "";
      return async () => {
        const response = await post(path, {
          ...body,
          page_query: { page_size: pageSize, page_token: pageToken },
        });
        const clone = response.clone();
        pageToken = ((await clone.json()) as { page: { next_page_token: string } }).page.next_page_token;
        return response;
      };
    };
    const now = Date.now();
    const week = { start_time: new Date(now - 7 * DAY).toISOString(), end_time: new Date(now).toISOString() };
    const testIds = (await store.db.selectFrom("test_cases").select("id").execute()).map((row) => row.id);
    const statuses = await store.db
      .selectFrom("test_cases")
      .select(["status", (eb) => eb.fn.countAll<number>().as("count")])
      .groupBy("status")
      .execute();
    const quarantinedCount = await store.db
      .selectFrom("test_cases")
      .select((eb) => eb.fn.countAll<number>().as("count"))
      .where("quarantined", "=", 1)
      .executeTakeFirstOrThrow();

    const latencies = [
      await measure("list-failing-tests, 7 days, first page of 25", 200, () =>
        post("list-failing-tests", { ...week, page_query: {} }),
      ),
      await measure(
        "list-failing-tests, 7 days, walking pages of 100",
        200,
        walker("list-failing-tests", week, 100),
      ),
      await measure(
        "list-unhealthy-tests FLAKY, walking pages of 25",
        200,
        walker("list-unhealthy-tests", { status: "FLAKY" }, 25),
      ),
      await measure(
        "list-unhealthy-tests BROKEN, walking pages of 100",
        200,
        walker("list-unhealthy-tests", { status: "BROKEN" }, 100),
      ),
      await measure(
        "list-quarantined-tests, walking pages of 100",
        200,
        walker("list-quarantined-tests", {}, 100),
      ),
      await measure("get-test-details, random tests", 500, (index) =>
        post("get-test-details", { test_id: testIds[(index * 7919) % testIds.length] }),
      ),
    ];
    server.closeAllConnections();
    server.close();
    await store.close();

    const [first, ...known] = throughput.runs;
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const uploadLine = (ms: number, cpuMs: number, results: number) =>
      `${(ms / 1000).toFixed(2)} s, ${rateOf(results, ms)} (CPU ${(cpuMs / 1000).toFixed(2)} s: ${rateOf(results, cpuMs)} of CPU time)`;
    console.log("\nSwitchyard test-health benchmark (SQLite, this machine)");
    console.log(`\ningestion, parsed and stored in one transaction, the report streamed from a file`);
    console.log(
      `  ${mib(reportBytes)} report, ${first!.results.toLocaleString("en-US")} test cases (${first!.failures} failing):`,
    );
    console.log(
      `    first upload (every test new):            ${uploadLine(first!.ms, first!.cpuMs, first!.results)}`,
    );
    console.log(
      `    next ${known.length} uploads (every test known), median: ${uploadLine(median(known.map((r) => r.ms)), median(known.map((r) => r.cpuMs)), first!.results)}`,
    );
    console.log(
      "  memory of a first upload, each in a fresh process (heap sampled after a full collection every 100 ms):",
    );
    for (const run of memory) {
      const [upload] = run.runs;
      console.log(
        `    ${mib(run.bytes)} report, ${upload!.results.toLocaleString("en-US")} test cases: RSS ${mib(run.rssBefore)} ` +
          `before, ${mib(run.peakRss)} at peak (+${mib(run.peakRss - run.rssBefore)}); live heap at most ${mib(run.peakLiveHeap)}`,
      );
    }
    console.log(
      "    the growth between them is SQLite's page cache (at most 16 MiB) and the key cache (at most 250,000 ids)",
    );
    console.log(
      "    filling up; the batch holds 2,000 test cases whatever the size of the report (the live heap is",
    );
    console.log(
      "    the main thread's: the report reader's holds a few chunks and two batches, capped at 256 MiB)",
    );
    console.log(
      `\nlistings over HTTP, one request at a time, ${stored.toLocaleString("en-US")} results over ${testIds.length.toLocaleString("en-US")} tests` +
        ` (stored in ${(generationMs / 1000).toFixed(1)} s; ${statuses.map((s) => `${s.count} ${s.status}`).join(", ")}, ${quarantinedCount.count} quarantined)`,
    );
    for (const line of latencies) console.log(`  ${line}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === "ingest") {
  await ingestionChild(
    process.argv[3]!,
    process.argv[4]!,
    Number(process.argv[5]),
    process.argv[6] === "memory",
  );
} else {
  await main();
}
