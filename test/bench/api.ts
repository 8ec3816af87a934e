// npm run bench:api — cold start of the built service, RSS at idle, and getQueue throughput with autocannon.
// Everything runs on loopback against a temporary SQLite database; GitHub is never contacted (the
// repository's installation is already known).
import { execSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { DEFAULT_QUEUE_SETTINGS, initialQueueState } from "../../src/queue/index.ts";
import { openMigratedDatabase } from "../../src/store/database.ts";
import { insertQueue } from "../../src/store/queues.ts";
import { insertQueueState } from "../../src/store/queue-states.ts";
import { rememberRepository } from "../../src/store/repositories.ts";
import { createToken } from "../../src/store/tokens.ts";
import { testPrivateKey } from "../support/github-app.ts";
import { freePort } from "../support/ports.ts";

const root = join(import.meta.dirname, "../..");
const startRuns = 5;

async function waitUntilUp(url: string, child: ChildProcess): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Starts the service with `command`, returns it and the milliseconds until /ping answered. */
async function startService(command: string[], env: Record<string, string>) {
  const port = await freePort();
  const began = performance.now();
  const child = spawn(command[0]!, command.slice(1), {
    cwd: root,
    env: { ...process.env, ...env, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "warn" },
    stdio: "ignore",
  });
  await waitUntilUp(`http://127.0.0.1:${port}/ping`, child);
  return { child, port, startMs: performance.now() - began };
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
  return kib / 1024;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  console.log("building (npm run build)…");
  execSync("npm run build --silent", { cwd: root, stdio: "inherit" });

  const dir = mkdtempSync(join(tmpdir(), "switchyard-bench-"));
  const databaseUrl = `file:${join(dir, "bench.db")}`;
  const store = await openMigratedDatabase(databaseUrl);
  const { token } = await createToken(store.db, {
    organization: "acme",
    owners: [],
    host: "github.com",
    now: Date.now(),
  });
  const repository = await rememberRepository(
    store.db,
    { host: "github.com", owner: "acme", name: "widgets", installationId: 1 },
    Date.now(),
  );
  const state = initialQueueState({
    queueId: "benchqueue01",
    targetBranch: "main",
    targetHeadSha: "a".repeat(40),
    testBranchPrefix: "mq/",
    settings: DEFAULT_QUEUE_SETTINGS,
  });
  await store.db.transaction().execute(async (trx) => {
    await insertQueue(
      trx,
      { id: state.queueId, repositoryId: repository.id, branch: "main", settings: state.settings },
      Date.now(),
    );
    await insertQueueState(trx, state, Date.now());
  });
  await store.close();
  const env = {
    DATABASE_URL: databaseUrl,
    APP_ID: "1",
    PRIVATE_KEY: testPrivateKey(),
    WEBHOOK_SECRET: "bench",
  };

  const distStarts: number[] = [];
  for (let i = 0; i < startRuns; i++) {
    const { child, startMs } = await startService([process.execPath, "dist/src/main.js"], env);
    distStarts.push(startMs);
    await stop(child);
  }
  const tsxStarts: number[] = [];
  for (let i = 0; i < startRuns; i++) {
    const { child, startMs } = await startService([process.execPath, "--import", "tsx", "src/main.ts"], env);
    tsxStarts.push(startMs);
    await stop(child);
  }

  const { child, port } = await startService([process.execPath, "dist/src/main.js"], env);
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const idleRss = rssMiB(child.pid!);

  const results: string[] = [];
  for (const connections of [1, 10]) {
    const result = await autocannon({
      url: `http://127.0.0.1:${port}/v1/getQueue`,
      method: "POST",
      connections,
      duration: 10,
      headers: { "content-type": "application/json", "x-api-token": token },
      body: JSON.stringify({
        repo: { host: "github.com", owner: "acme", name: "widgets" },
        targetBranch: "main",
      }),
    });
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`getQueue failed: ${result.non2xx} non-2xx`);
    results.push(
      `getQueue, ${String(connections).padStart(2)} connection(s): ${Math.round(result.requests.average)} req/s ` +
        `(latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, ${result.requests.total} requests)`,
    );
  }
  const loadedRss = rssMiB(child.pid!);
  await stop(child);
  rmSync(dir, { recursive: true, force: true });

  console.log("\nSwitchyard API benchmark (SQLite, loopback, this machine)");
  console.log(
    `cold start, node dist/src/main.js (after build): median ${median(distStarts).toFixed(0)} ms over ${startRuns} starts [${distStarts.map((s) => s.toFixed(0)).join(", ")}]`,
  );
  console.log(
    `cold start, npm start (tsx src/main.ts):         median ${median(tsxStarts).toFixed(0)} ms over ${startRuns} starts [${tsxStarts.map((s) => s.toFixed(0)).join(", ")}]`,
  );
  console.log(
    `RSS at idle (3 s after start): ${idleRss.toFixed(1)} MiB; after the load: ${loadedRss.toFixed(1)} MiB`,
  );
  for (const line of results) console.log(line);
}

await main();
