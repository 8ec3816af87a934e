// npm run bench:metrics — GET /v1/getMergeQueueMetrics for an organization with 50 queues and 2,000 PRs concluded
// in the last hour (plus a day of older history and PRs still queued), over HTTP on loopback: p50 and p95 of 50
// scrapes of the whole organization and of one repository. Target: under 100 ms. Rows are written straight into
// the projection tables the queue engine maintains, as it would have written them. SQLite always; PostgreSQL too
// when TEST_DATABASE_URL is set.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { sql } from "kysely";
import pg from "pg";
import { DEFAULT_QUEUE_SETTINGS, initialQueueState } from "../../src/queue/index.ts";
import { insertRows } from "../../src/store/bulk-insert.ts";
import { type Dialect, openMigratedDatabase, type Store } from "../../src/store/database.ts";
import { insertQueue } from "../../src/store/queues.ts";
import { insertQueueState } from "../../src/store/queue-states.ts";
import { rememberRepository } from "../../src/store/repositories.ts";
import type { Database } from "../../src/store/schema.ts";
import { createToken } from "../../src/store/tokens.ts";
import { startTestServer } from "../support/api-server.ts";
import { parseExposition } from "../support/prometheus-text.ts";

const repositories = 10;
const branchesPerRepository = 5;
const concludedLastHour = 2000;
const olderHistory = { hours: 24, prsPerHour: 500 };
const queuedPerQueue = 6;
const scrapes = 50;
const minute = 60_000;
const now = Date.parse("2026-11-21T12:00:00.000Z");

/** A small deterministic generator, so every run measures the same data. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

interface Rows {
  submissions: unknown[][];
  transitions: unknown[][];
  runs: unknown[][];
}

const submissionColumns = [
  "id",
  "queue_id",
  "pr_number",
  "pr_title",
  "pr_sha",
  "pr_base_branch",
  "pr_author",
  "state",
  "state_reason",
  "state_detail",
  "state_changed_at",
  "priority_value",
  "used_default_priority",
  "skip_the_line",
  "no_batch",
  "submitted_at",
  "record",
];
const counterColumns = ["queue_id", "metric", "label", "value"];
const transitionColumns = ["submission_id", "seq", "queue_id", "pr_number", "state", "reason", "at"];
const runColumns = [
  "id",
  "queue_id",
  "status",
  "test_branch",
  "test_branch_sha",
  "started_at",
  "ended_at",
  "end_reason",
  "record",
];

/**
 * One PR's life as the engine records it: submitted, waits, tests (restarted now and then), then merges, fails
 * or is cancelled at `concludedAt` (null: still queued, testing or waiting).
 */
function addPullRequest(
  rows: Rows,
  next: () => number,
  queueId: string,
  number: number,
  concludedAt: number | null,
): void {
  const id = `${queueId}-pr-${number}`;
  const submittedAt = (concludedAt ?? now) - Math.round((5 + next() * 85) * minute);
  const transitions: [string, string, number][] = [["pending", "submitted", submittedAt]];
  let at = submittedAt + Math.round(next() * 20 * minute);
  const runsOf = (status: string, startedAt: number, endedAt: number | null, reason: string | null) => {
    const runId = `${queueId}-run-${number}-${rows.runs.length}`;
    rows.runs.push([
      runId,
      queueId,
      status,
      `mq/main/${runId}`,
      "f".repeat(40),
      startedAt,
      endedAt,
      reason,
      "{}",
    ]);
  };
  if (concludedAt === null) {
    const state = next() < 0.3 ? "not_ready" : next() < 0.5 ? "pending" : "testing";
    if (state === "testing") {
      transitions.push(["testing", "test_started", at]);
      runsOf("in_progress", at, null, null);
    }
    if (state === "not_ready") transitions[0] = ["not_ready", "submitted", submittedAt];
    rows.submissions.push(submission(id, queueId, number, state, transitions.at(-1)![1], at, submittedAt));
    transitions.forEach(([state, reason, when], seq) =>
      rows.transitions.push([id, seq, queueId, number, state, reason, when]),
    );
    return;
  }
  const outcome = next();
  const state = outcome < 0.8 ? "merged" : outcome < 0.9 ? "failed" : "cancelled";
  if (next() < 0.2 && at < concludedAt - 2 * minute) {
    const restartAt = at + Math.round((concludedAt - at) * 0.3);
    transitions.push(["testing", "test_started", at], ["pending", "pr_ahead_failed", restartAt]);
    runsOf("cancelled", at, restartAt, "pr_ahead_failed");
    at = restartAt;
  }
  transitions.push(["testing", "test_started", at]);
  const reason = state === "merged" ? "merged" : state === "failed" ? "tests_failed" : "cancelled_by_user";
  if (state === "merged") {
    const passedAt = concludedAt - Math.round(next() * minute);
    transitions.push(["tests_passed", "tests_passed", passedAt]);
    runsOf("succeeded", at, passedAt, "succeeded");
  } else {
    runsOf(state === "failed" ? "failed" : "cancelled", at, concludedAt, reason);
  }
  transitions.push([state, reason, concludedAt]);
  rows.submissions.push(submission(id, queueId, number, state, reason, concludedAt, submittedAt));
  transitions.forEach(([state, why, when], seq) =>
    rows.transitions.push([id, seq, queueId, number, state, why, when]),
  );
}

function submission(
  id: string,
  queueId: string,
  number: number,
  state: string,
  reason: string,
  changedAt: number,
  submittedAt: number,
): unknown[] {
  return [id, queueId, number, `Change ${number}`, "a".repeat(40), "main", "alice", state, reason, ""].concat(
    [changedAt, 100, 1, 0, 0, submittedAt, "{}"],
  );
}

async function seed(store: Store): Promise<{ token: string; summary: string }> {
  const { token } = await createToken(store.db, {
    organization: "acme",
    owners: [],
    host: "github.com",
    now,
  });
  const queueIds: string[] = [];
  for (let r = 0; r < repositories; r++) {
    const repository = await rememberRepository(
      store.db,
      { host: "github.com", owner: "acme", name: `service-${r}`, installationId: 1 },
      now,
    );
    for (let b = 0; b < branchesPerRepository; b++) {
      const queueId = `q${r}b${b}`;
      const branch = b === 0 ? "main" : `release-${b}`;
      await store.db.transaction().execute(async (trx) => {
        await insertQueue(
          trx,
          { id: queueId, repositoryId: repository.id, branch, settings: DEFAULT_QUEUE_SETTINGS },
          now,
        );
        const state = initialQueueState({
          queueId,
          targetBranch: branch,
          targetHeadSha: "0".repeat(40),
          testBranchPrefix: "mq/",
          settings: DEFAULT_QUEUE_SETTINGS,
        });
        await insertQueueState(trx, state, now);
      });
      queueIds.push(queueId);
    }
  }
  const rows: Rows = { submissions: [], transitions: [], runs: [] };
  const next = random(42);
  const queueAt = (i: number) => queueIds[i % queueIds.length]!;
  let number = 0;
  for (let i = 0; i < concludedLastHour; i++) {
    addPullRequest(rows, next, queueAt(i), ++number, now - Math.round(next() * 59 * minute) - 1);
  }
  const older = olderHistory.hours * olderHistory.prsPerHour;
  for (let i = 0; i < older; i++) {
    const concludedAt = now - 61 * minute - Math.round(next() * (olderHistory.hours - 1) * 60 * minute);
    addPullRequest(rows, next, queueAt(i), ++number, concludedAt);
  }
  for (let i = 0; i < queueIds.length * queuedPerQueue; i++)
    addPullRequest(rows, next, queueAt(i), ++number, null);

  // The cumulative counters the engine advances with each step that concludes a PR or ends a run.
  const counted = new Map<string, number>();
  const count = (queueId: unknown, metric: string, label: unknown) => {
    const key = JSON.stringify([queueId, metric, label]);
    counted.set(key, (counted.get(key) ?? 0) + 1);
  };
  for (const row of rows.submissions) {
    if (["merged", "failed", "cancelled"].includes(row[7] as string)) count(row[1], "pr_conclusions", row[7]);
  }
  for (const row of rows.runs) if (row[2] !== "in_progress") count(row[1], "test_runs", row[2]);
  const counterRows = [...counted].map(([key, value]) => [...(JSON.parse(key) as unknown[]), value]);

  await store.db.transaction().execute(async (trx) => {
    await insertRows<Database>(trx, store.dialect, "queue_metric_counters", counterColumns, counterRows);
    await insertRows<Database>(
      trx,
      store.dialect,
      "pull_request_submissions",
      submissionColumns,
      rows.submissions,
    );
    await insertRows<Database>(
      trx,
      store.dialect,
      "pull_request_transitions",
      transitionColumns,
      rows.transitions,
    );
    await insertRows<Database>(trx, store.dialect, "test_runs", runColumns, rows.runs);
  });
  // PostgreSQL's autovacuum would have gathered statistics on tables grown this way; do it now.
  if (store.dialect === "postgres") await sql`analyze`.execute(store.db);
  const summary =
    `${queueIds.length} queues, ${concludedLastHour} PRs concluded in the last hour, ${older} older ones over ` +
    `${olderHistory.hours} h, ${queueIds.length * queuedPerQueue} queued: ${rows.submissions.length} submissions, ` +
    `${rows.transitions.length} transitions, ${rows.runs.length} test runs`;
  return { token, summary };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function timeScrapes(url: string, token: string): Promise<{ p50: number; p95: number; text: string }> {
  let text = "";
  const scrape = async () => {
    const response = await fetch(url, { headers: { "x-api-token": token } });
    if (response.status !== 200)
      throw new Error(`scrape answered ${response.status}: ${await response.text()}`);
    text = await response.text();
  };
  for (let i = 0; i < 5; i++) await scrape(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < scrapes; i++) {
    const started = performance.now();
    await scrape();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), text };
}

/** A database of its own: a temporary SQLite file, or a PostgreSQL schema dropped afterwards. */
async function benchDatabase(dialect: Dialect): Promise<{ store: Store; dispose: () => Promise<void> }> {
  if (dialect === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "switchyard-bench-"));
    const store = await openMigratedDatabase(`file:${join(dir, "bench.db")}`);
    return {
      store,
      dispose: async () => (await store.close(), rmSync(dir, { recursive: true, force: true })),
    };
  }
  const baseUrl = process.env.TEST_DATABASE_URL as string;
  const schema = `switchyard_bench_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const url = new URL(baseUrl);
  url.searchParams.set("options", `-c search_path=${schema}`);
  const store = await openMigratedDatabase(url.toString());
  return {
    store,
    dispose: async () => {
      await store.close();
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    },
  };
}

async function bench(dialect: Dialect): Promise<void> {
  const { store, dispose } = await benchDatabase(dialect);
  const server = await startTestServer(store, { clock: () => now });
  try {
    const generating = performance.now();
    const { token, summary } = await seed(store);
    console.log(
      `${dialect}: ${summary} (written in ${((performance.now() - generating) / 1000).toFixed(1)} s)`,
    );
    const endpoint = `${server.url}/v1/getMergeQueueMetrics`;
    const org = await timeScrapes(endpoint, token);
    const scraped = parseExposition(org.text);
    const total = (name: string) => scraped.matching(name).reduce((sum, sample) => sum + sample.value, 0);
    const expected = concludedLastHour + olderHistory.hours * olderHistory.prsPerHour;
    if (
      total("mq_pr_conclusions_1h_total") !== concludedLastHour ||
      total("mq_pr_conclusions_total") !== expected
    ) {
      throw new Error("the scrape does not count the PRs the benchmark wrote");
    }
    const series = org.text.split("\n").filter((line) => line !== "" && !line.startsWith("#")).length;
    console.log(
      `${dialect}: scrape of the organization (${repositories * branchesPerRepository} queues, ${series} samples, ` +
        `${(org.text.length / 1024).toFixed(0)} KiB): p50 ${org.p50.toFixed(1)} ms, p95 ${org.p95.toFixed(1)} ms over ${scrapes} scrapes`,
    );
    const one = await timeScrapes(`${endpoint}?repo=acme/service-3&repoHost=github.com`, token);
    console.log(
      `${dialect}: scrape of one repository (${branchesPerRepository} queues): p50 ${one.p50.toFixed(1)} ms, ` +
        `p95 ${one.p95.toFixed(1)} ms over ${scrapes} scrapes`,
    );
  } finally {
    await server.close();
    await dispose();
  }
}

console.log("Switchyard metrics benchmark (this machine; target: a scrape under 100 ms)");
await bench("sqlite");
if (process.env.TEST_DATABASE_URL) await bench("postgres");
