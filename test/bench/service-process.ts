// The service as the benchmarks run it: its own process on loopback, on a SQLite database that already knows a token
// and the acme/widgets repository (so GitHub is never contacted), measured from outside through /proc.
import { type ChildProcess, execSync, spawn } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { openMigratedDatabase, type Store } from "../../src/store/database.ts";
import { rememberRepository, type Repository } from "../../src/store/repositories.ts";
import { createToken } from "../../src/store/tokens.ts";
import { testPrivateKey } from "../support/github-app.ts";
import { freePort } from "../support/ports.ts";

export const root = join(import.meta.dirname, "../..");
export const repo = { host: "github.com", owner: "acme", name: "widgets" };

/**
 * Builds the service as users do (`npm run build`). BENCH_SKIP_BUILD=1 skips it, for a re-run on a build that is
 * known to be current.
 */
export function buildService(): void {
  if (process.env.BENCH_SKIP_BUILD === "1")
    return console.log("using the existing build (BENCH_SKIP_BUILD=1)");
  console.log("building (npm run build)…");
  execSync("npm run build --silent", { cwd: root, stdio: "inherit" });
}

/**
 * The service started from the bundle `npm run build` writes, as the image runs it. BENCH_CPU_PROF=<dir> has each
 * such process write a V8 CPU profile there when it stops (node --cpu-prof; test/bench/profile-summary.ts reads it).
 */
export const distCommand = [
  process.execPath,
  ...(process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
  "dist/src/main.js",
];
/** As `npm start` runs it, but without npm's and tsx's wrapper processes, so that the pid is the service's. */
export const tsxCommand = [process.execPath, "--import", "tsx", "src/main.ts"];

/**
 * A new SQLite database at `path` with an API token and the repository `repo` installed; `fill` adds what the
 * benchmark reads. Returns the service's environment and the token.
 */
export async function benchDatabase(
  path: string,
  fill: (store: Store, repository: Repository) => Promise<void> = async () => undefined,
): Promise<{ env: Record<string, string>; token: string }> {
  const databaseUrl = `file:${path}`;
  const store = await openMigratedDatabase(databaseUrl);
  try {
    const { token } = await createToken(store.db, {
      organization: "acme",
      owners: [],
      host: "github.com",
      now: Date.now(),
    });
    const repository = await rememberRepository(store.db, { ...repo, installationId: 1 }, Date.now());
    await fill(store, repository);
    const env = {
      DATABASE_URL: databaseUrl,
      APP_ID: "1",
      PRIVATE_KEY: testPrivateKey(),
      WEBHOOK_SECRET: "bench",
    };
    return { env, token };
  } finally {
    await store.close();
  }
}

async function waitUntilUp(url: string, child: ChildProcess, log: string): Promise<void> {
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`service exited with ${child.exitCode} (its output: ${log})`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Starts the service with `command`, returns it, the milliseconds until /ping answered and the CPU time the process
 * had taken by then (all its threads; unlike the wall-clock time, it hardly depends on what else the machine runs).
 * The service runs as users run it: at the default log level (unless `env` sets LOG_LEVEL), its output written to
 * the file `log` (appended; /dev/null when none is given, which still formats and writes every line).
 */
export async function startService(
  command: readonly string[],
  env: Record<string, string>,
  log = "/dev/null",
) {
  const port = await freePort();
  const began = performance.now();
  const { LOG_LEVEL: _inherited, ...parentEnv } = process.env;
  const output = openSync(log, "a");
  const child = spawn(command[0]!, command.slice(1), {
    cwd: root,
    env: { ...parentEnv, ...env, PORT: String(port), HOST: "127.0.0.1" },
    stdio: ["ignore", output, output],
  });
  closeSync(output);
  await waitUntilUp(`http://127.0.0.1:${port}/ping`, child, log);
  return { child, port, startMs: performance.now() - began, cpuMs: cpuMs(child.pid!) };
}

export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

/** User and system CPU time of a process so far, from /proc (clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** A process's resident memory now (VmRSS) or at its peak (VmHWM), in MiB. */
export function memoryMiB(pid: number, field: "VmRSS" | "VmHWM" = "VmRSS"): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1]) / 1024;
}
