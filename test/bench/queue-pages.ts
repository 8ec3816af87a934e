// npm run bench:pages — how fast the queue pages answer a signed-in browser, over a socket, with 200 PRs queued
// (10 runs in flight, each with its checks) and 10,000 PRs in the queue's history (30 days of it, the last day's
// merges, failures and runs drawn in the charts). Prints mean, p50, p95 and max per page against the 50 ms budget.
// On SQLite; BENCH_DIALECT=postgres runs it on the database TEST_DATABASE_URL names.
import { performance } from "node:perf_hooks";
import type { Kysely } from "kysely";
import { type QueueState, step } from "../../src/queue/index.ts";
import type { Database } from "../../src/store/schema.ts";
import { aPr } from "../support/queue-factories.ts";
import { repoRef as repo, type Scenario, startScenario } from "../support/queue-scenario.ts";
import { browserOn } from "../support/test-pages.ts";

const QUEUED = 200;
const HISTORY = 10_000;
const HISTORY_DAYS = 30;
const BUDGET_MS = 50;
const SAMPLES = 200;
const WARMUP = 30;
const MINUTE = 60_000;

/** 200 PRs queued on the queue's own state, saved as the queue's state; runs in flight have CI reporting. */
async function queuePullRequests(s: Scenario, queueId: string): Promise<void> {
  let state = (await s.server.engine.read(queueId)) as QueueState;
  const now = s.clock.now;
  for (let n = 1; n <= QUEUED; n++) {
    const submitted = aPr(n, { submissionId: `queued-${n}` });
    state = step(
      state,
      { ...submitted, pr: { ...submitted.pr, title: `<b>Change</b> "${n}" & more` } },
      now - n * MINUTE,
    ).state;
  }
  for (const run of Object.values(state.runs)) {
    state = step(state, { type: "test_branch_created", runId: run.id, sha: `sha-${run.id}` }, now).state;
    const report = {
      kind: "status",
      name: "ci",
      id: 1,
      state: "pending",
      url: "https://ci.example/1",
    } as const;
    state = step(state, { type: "status_reported", sha: `sha-${run.id}`, report }, now).state;
  }
  await s.store.db
    .updateTable("queue_states")
    .set((eb) => ({ state: JSON.stringify(state), version: eb("version", "+", 1) }))
    .where("queue_id", "=", queueId)
    .execute();
}

/** 10,000 PRs that left the queue over 30 days, each submitted, tested and concluded, with its run. */
async function writeHistory(db: Kysely<Database>, queueId: string, now: number): Promise<void> {
  const outcomes = ["merged", "merged", "merged", "merged", "failed", "cancelled"] as const;
  const submissions = [];
  const transitions = [];
  const runs = [];
  for (let i = 0; i < HISTORY; i++) {
    const number = 10_000 + i;
    const leftAt = now - Math.floor(((i + 0.5) / HISTORY) * HISTORY_DAYS * 24 * 60) * MINUTE;
    const submittedAt = leftAt - (20 + (i % 40)) * MINUTE;
    const state = outcomes[i % outcomes.length] as (typeof outcomes)[number];
    const id = `history-${i}`;
    const reason = { merged: "merged", failed: "tests_failed", cancelled: "cancelled_by_user" }[state];
    submissions.push({
      id,
      queue_id: queueId,
      pr_number: number,
      pr_title: `Historic change ${number}`,
      pr_sha: `sha-${number}`,
      pr_base_branch: "main",
      pr_author: "octocat",
      state,
      state_reason: reason,
      state_detail: `Left as ${state}.`,
      state_changed_at: leftAt,
      priority_value: 100,
      used_default_priority: 1 as const,
      skip_the_line: 0 as const,
      no_batch: 0 as const,
      submitted_at: submittedAt,
      record: JSON.stringify({ testRunId: `history-run-${i}` }),
    });
    const base = { submission_id: id, queue_id: queueId, pr_number: number };
    transitions.push(
      { ...base, seq: 1, state: "pending", reason: "submitted", at: submittedAt },
      { ...base, seq: 2, state: "testing", reason: "test_started", at: submittedAt + MINUTE },
      { ...base, seq: 3, state, reason, at: leftAt },
    );
    runs.push({
      id: `history-run-${i}`,
      queue_id: queueId,
      status: state === "merged" ? "succeeded" : "failed",
      test_branch: `mq/main/history-${i}`,
      test_branch_sha: `run-sha-${i}`,
      started_at: submittedAt + MINUTE,
      ended_at: leftAt - MINUTE,
      end_reason: state === "merged" ? "succeeded" : "tests_failed",
      record: "{}",
    });
  }
  const inChunks = async <Row>(rows: Row[], insert: (chunk: Row[]) => Promise<unknown>) => {
    for (let start = 0; start < rows.length; start += 500) await insert(rows.slice(start, start + 500));
  };
  await inChunks(submissions, (chunk) => db.insertInto("pull_request_submissions").values(chunk).execute());
  await inChunks(transitions, (chunk) => db.insertInto("pull_request_transitions").values(chunk).execute());
  await inChunks(runs, (chunk) => db.insertInto("test_runs").values(chunk).execute());
}

function figures(name: string, times: number[]): string {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
  const mean = sorted.reduce((sum, t) => sum + t, 0) / sorted.length;
  const verdict = at(0.95) <= BUDGET_MS ? "within" : "OVER";
  return `${name.padEnd(44)} mean ${mean.toFixed(1)} ms, p50 ${at(0.5).toFixed(1)} ms, p95 ${at(0.95).toFixed(1)} ms, max ${at(1).toFixed(1)} ms (p95 ${verdict} ${BUDGET_MS} ms)`;
}

async function main(): Promise<void> {
  const s = await startScenario({
    dialect: process.env.BENCH_DIALECT === "postgres" ? "postgres" : "sqlite",
  });
  try {
    await s.api("createQueue", { repo, targetBranch: "main", requiredStatuses: ["ci"], concurrency: 10 });
    const queue = await s.store.db.selectFrom("queues").select("id").executeTakeFirstOrThrow();
    await queuePullRequests(s, queue.id);
    await writeHistory(s.store.db, queue.id, s.clock.now);
    const cookie = await browserOn(s.server).sessionCookie(s.token, { queue: "github.com/acme/widgets" });

    const queuePage = `${s.server.url}/queues/github.com/acme/widgets/main`;
    const version = (await fetch(queuePage, { headers: { cookie } })).headers.get("etag") as string;
    const pages: [string, string, Record<string, string>, number][] = [
      ["repository's queues", `${s.server.url}/queues/github.com/acme/widgets`, {}, 200],
      ["queue page", queuePage, {}, 200],
      ["live part, changed", `${queuePage}?part=live`, {}, 200],
      ["live part, unchanged (304)", `${queuePage}?part=live`, { "if-none-match": version }, 304],
    ];
    const page = await (await fetch(queuePage, { headers: { cookie } })).text();
    console.log(
      `${s.store.dialect}: ${QUEUED} PRs queued, ${HISTORY} in the history over ${HISTORY_DAYS} days; the queue page is ${(page.length / 1024).toFixed(0)} KiB`,
    );
    for (const [name, url, headers, status] of pages) {
      const times: number[] = [];
      for (let i = 0; i < WARMUP + SAMPLES; i++) {
        const started = performance.now();
        const response = await fetch(url, { headers: { cookie, ...headers } });
        await response.arrayBuffer();
        if (response.status !== status) throw new Error(`${name} answered ${response.status}`);
        if (i >= WARMUP) times.push(performance.now() - started);
      }
      console.log(figures(name, times));
    }
  } finally {
    await s.close();
  }
}

await main();
