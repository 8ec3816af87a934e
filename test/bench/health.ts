// npm run bench:health — the test-health listings over HTTP with 1,000,000 stored results over 20,000 tests: p50
// and p95 latency of each listing endpoint, one request at a time, on the built service as users run it
// (`node dist/src/main.js`, its own process, SQLite, the default log level with its output written to a file),
// in turns with a bare Fastify 5 server answering the same requests with the same bytes as ready strings
// (bare-api.ts: no authentication, no query, no serialisation), so that the two differ only by what the service does
// per request. The results are stored before the service starts, by the ingestion use case in this process (data
// preparation: the ingestion's own figures, over HTTP beside a bare parse and a bare insert loop, are
// npm run bench:upload's). GitHub is never contacted: the uploads tell the default branch and CODEOWNERS.
// BENCH_ROUNDS sets the turns each server gets per listing (default 2), BENCH_SKIP_BUILD=1 uses the existing build.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { rememberCheckout } from "../../src/test-health-use-cases/checkout-facts.ts";
import { ingestUpload } from "../../src/test-health-use-cases/ingestion.ts";
import { newId } from "../../src/store/ids.ts";
import type { Store } from "../../src/store/database.ts";
import type { Repository } from "../../src/store/repositories.ts";
import { random, reportChunks } from "./junit-report.ts";
import {
  benchDatabase,
  buildService,
  cpuMs,
  distCommand,
  repo as repoRef,
  startService,
  stop,
} from "./service-process.ts";

const HOUR = 3600 * 1000;
const DAY = 24 * HOUR;
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);

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
  await rememberCheckout(
    store,
    repository,
    "main",
    {
      defaultBranch: "main",
      codeowners:
        "* @acme/core\nsrc/module0*/ @acme/widgets\nsrc/module1*/ @acme/gadgets @octocat\n*.spec.ts @acme/qa\n",
    },
    now,
  );
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

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** One listing: its path under /v1/flaky-tests/, and the body of each request (page tokens follow the answers). */
interface Listing {
  label: string;
  path: string;
  requests: number;
  /** The body of the next request, given the answer to the one before (undefined for the first). */
  next: (index: number, previousAnswer: string | undefined) => Record<string, unknown>;
}

/** Walks the pages of a listing, from the first again once the last is reached. */
function walking(body: Record<string, unknown>, pageSize: number) {
  return (_index: number, previous: string | undefined) => {
    const token = previous === undefined ? "" : (JSON.parse(previous).page.next_page_token as string);
    return { ...body, page_query: { page_size: pageSize, page_token: token } };
  };
}

interface Latencies {
  p50: number;
  p95: number;
  /** The server process's CPU time per request, in ms (all its threads, from /proc): hardly depends on the load. */
  cpu: number;
}

/**
 * `requests` requests of `listing` one at a time to the server at `port`, after 10 that warm it up; the answers'
 * bodies, and the latencies.
 */
async function measure(
  { port, pid }: { port: number; pid: number },
  token: string,
  listing: Listing,
  path = listing.path,
) {
  const answers: string[] = [];
  let cpuBefore = 0;
  const latencies: number[] = [];
  let previous: string | undefined;
  for (let index = 0; index < listing.requests + 10; index++) {
    if (index === 10) cpuBefore = cpuMs(pid);
    const body = { repo: repoRef, org_url_slug: "acme", ...listing.next(index, previous) };
    const began = performance.now();
    const response = await fetch(`http://127.0.0.1:${port}/v1/flaky-tests/${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-token": token },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`${listing.label}: ${response.status} ${text}`);
    if (index >= 10) latencies.push(performance.now() - began);
    answers.push(text);
    previous = text;
  }
  const cpu = (cpuMs(pid) - cpuBefore) / listing.requests;
  latencies.sort((a, b) => a - b);
  return { answers, latencies: { p50: percentile(latencies, 50), p95: percentile(latencies, 95), cpu } };
}

async function main(): Promise<void> {
  buildService();
  const dir = mkdtempSync(join(tmpdir(), "switchyard-bench-health-"));
  const children = [];
  try {
    console.log("storing 1,000,000 results over 20,000 tests…");
    let stored = 0;
    let generationMs = 0;
    let testIds: string[] = [];
    let census = "";
    const { env, token } = await benchDatabase(join(dir, "listings.db"), async (store, repository) => {
      const began = performance.now();
      stored = await storeMillionResults(store, repository);
      generationMs = performance.now() - began;
      testIds = (await store.db.selectFrom("test_cases").select("id").execute()).map((row) => row.id);
      const statuses = await store.db
        .selectFrom("test_cases")
        .select(["status", (eb) => eb.fn.countAll<number>().as("count")])
        .groupBy("status")
        .execute();
      const quarantined = await store.db
        .selectFrom("test_cases")
        .select((eb) => eb.fn.countAll<number>().as("count"))
        .where("quarantined", "=", 1)
        .executeTakeFirstOrThrow();
      census = `${statuses.map((s) => `${s.count} ${s.status}`).join(", ")}, ${quarantined.count} quarantined`;
    });
    const service = await startService(distCommand, env, join(dir, "service.log"));
    children.push(service.child);
    const serviceServer = { port: service.port, pid: service.child.pid! };

    const now = Date.now();
    const week = { start_time: new Date(now - 7 * DAY).toISOString(), end_time: new Date(now).toISOString() };
    const listings: Listing[] = [
      {
        label: "list-failing-tests, 7 days, first page of 25",
        path: "list-failing-tests",
        requests: 200,
        next: () => ({ ...week, page_query: {} }),
      },
      {
        label: "list-failing-tests, 7 days, walking pages of 100",
        path: "list-failing-tests",
        requests: 200,
        next: walking(week, 100),
      },
      {
        label: "list-unhealthy-tests FLAKY, walking pages of 25",
        path: "list-unhealthy-tests",
        requests: 200,
        next: walking({ status: "FLAKY" }, 25),
      },
      {
        label: "list-unhealthy-tests BROKEN, walking pages of 100",
        path: "list-unhealthy-tests",
        requests: 200,
        next: walking({ status: "BROKEN" }, 100),
      },
      {
        label: "list-quarantined-tests, walking pages of 100",
        path: "list-quarantined-tests",
        requests: 200,
        next: walking({}, 100),
      },
      {
        label: "get-test-details, random tests",
        path: "get-test-details",
        requests: 500,
        next: (index) => ({ test_id: testIds[(index * 7919) % testIds.length] }),
      },
    ];

    // The service's answers, in order, become the bare server's: each listing under a path of its own, answered
    // round robin (a walk's pages in the order the service gave them).
    const bareAnswers: Record<string, { type: string; bodies: string[] }> = {};
    for (const [index, listing] of listings.entries()) {
      const { answers } = await measure(serviceServer, token, listing);
      bareAnswers[`/v1/flaky-tests/bare-${index}`] = {
        type: "application/json; charset=utf-8",
        bodies: answers,
      };
    }
    const answersFile = join(dir, "answers.json");
    writeFileSync(answersFile, JSON.stringify(bareAnswers));
    const bare = await startService(
      [process.execPath, "--import", "tsx", "test/bench/bare-api.ts", answersFile],
      {},
    );
    children.push(bare.child);
    const bareServer = { port: bare.port, pid: bare.child.pid! };

    const lines: string[] = [];
    for (const [index, listing] of listings.entries()) {
      const service_: Latencies[] = [];
      const bare_: Latencies[] = [];
      for (let round = 0; round < rounds; round++) {
        service_.push((await measure(serviceServer, token, listing)).latencies);
        bare_.push((await measure(bareServer, token, listing, `bare-${index}`)).latencies);
      }
      const p50 = median(service_.map((l) => l.p50));
      const p95 = median(service_.map((l) => l.p95));
      const bareP50 = median(bare_.map((l) => l.p50));
      const bareP95 = median(bare_.map((l) => l.p95));
      const cpu = median(service_.map((l) => l.cpu));
      const bareCpu = median(bare_.map((l) => l.cpu));
      lines.push(
        `${listing.label.padEnd(52)} p50 ${p50.toFixed(2).padStart(6)} ms, p95 ${p95.toFixed(2).padStart(6)} ms ` +
          `vs bare p50 ${bareP50.toFixed(2)} ms, p95 ${bareP95.toFixed(2)} ms = ${(bareP50 / p50).toFixed(2)}; ` +
          `CPU per request ${cpu.toFixed(2)} ms vs bare ${bareCpu.toFixed(2)} ms = ${(bareCpu / cpu).toFixed(2)} ` +
          `(${listing.requests} requests, ${Math.round(median(bareAnswers[`/v1/flaky-tests/bare-${index}`]!.bodies.map((b) => b.length)) / 1024)} KiB answers; load average ${loadavg()[0]!.toFixed(2)})`,
      );
    }

    console.log("\nSwitchyard test-health listings benchmark (SQLite, loopback, this machine)");
    console.log(
      `service: node dist/src/main.js, default log level, output to a file; bare: Fastify, logging off, the same ` +
        `answers as ready strings; one request at a time, ${rounds} turns each in alternation; ratios: bare p50 / service p50, and bare CPU per request / the service's (from /proc, the figure to trust on a busy machine)`,
    );
    console.log(
      `${stored.toLocaleString("en-US")} results over ${testIds.length.toLocaleString("en-US")} tests ` +
        `(stored beforehand in ${(generationMs / 1000).toFixed(1)} s; ${census})`,
    );
    for (const line of lines) console.log(`  ${line}`);
    console.log("ingestion throughput and upload memory: npm run bench:upload");
  } finally {
    for (const child of children) await stop(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
