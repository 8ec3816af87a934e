// The service as `npm start` runs it (src/main.ts under tsx), as replicas on one database: each keeps its
// port across restarts, can be killed with SIGKILL and started again, and reports its resident memory; the
// measured one also what its JavaScript holds after a full garbage collection (./heap-probe.ts).
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const root = join(import.meta.dirname, "../..");
const tsxLoader = pathToFileURL(join(root, "node_modules/tsx/dist/loader.mjs")).href;
const heapProbe = pathToFileURL(join(import.meta.dirname, "heap-probe.ts")).href;
/** A full collection of a heap of tens of MiB takes well under a second, even on a busy machine. */
const heapProbeTimeoutMs = 30_000;
const logTailBytes = 64 * 1024;

export interface MemoryAfterGc {
  /** The JavaScript heap in use and external buffers. */
  readonly live: number;
  /** Of `live`, the functions compiled so far (bytecode and machine code, with their metadata). */
  readonly code: number;
  readonly rss: number;
}

export class Replica {
  /** Killed by the test (SIGKILL), and exits nobody asked for. */
  kills = 0;
  crashes = 0;
  starts = 0;
  /** How long each kill kept this replica from answering, until it answered again. */
  readonly downtimes: number[] = [];
  /** When each kill happened, ms since the epoch. */
  readonly killedAtTimes: number[] = [];
  private killedAt: number | undefined;
  private child: ChildProcess | undefined;
  private ready = false;
  private stopping = false;
  private log = "";

  constructor(
    readonly name: string,
    readonly port: number,
    private readonly env: Readonly<Record<string, string>>,
    private readonly cwd: string,
    private readonly startTimeoutMs: number,
    /** Started with the heap probe, so that memoryAfterGc can be asked. */
    private readonly probed = false,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get up(): boolean {
    return this.ready;
  }

  /** Starts the process and resolves once it answers (Probot's /ping; it logs nothing below warn). */
  async start(): Promise<void> {
    this.stopping = false;
    this.starts += 1;
    const probe = this.probed ? ["--expose-gc", "--import", heapProbe] : [];
    const child = spawn(process.execPath, ["--import", tsxLoader, ...probe, join(root, "src/main.ts")], {
      stdio: ["pipe", "pipe", "pipe", ...(this.probed ? ["ipc" as const] : [])],
      cwd: this.cwd,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: this.cwd,
        NODE_ENV: "production",
        PORT: String(this.port),
        HOST: "127.0.0.1",
        ...this.env,
      },
    });
    this.child = child;
    // A test that times out never stops its replicas: they go with the test's process.
    const reap = () => child.kill("SIGKILL");
    process.once("exit", reap);
    child.once("exit", () => process.off("exit", reap));
    const onData = (chunk: Buffer) => {
      this.log = (this.log + chunk.toString()).slice(-logTailBytes);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    let exited = false;
    child.once("exit", (code, signal) => {
      exited = true;
      this.ready = false;
      if (!this.stopping) {
        this.crashes += 1;
        this.log += `\n[${this.name} exited by itself: code ${code}, signal ${signal}]\n`;
      }
    });
    const deadline = Date.now() + this.startTimeoutMs;
    while (!exited && Date.now() < deadline) {
      try {
        const response = await fetch(`${this.url}/ping`, { signal: AbortSignal.timeout(1_000) });
        if (response.ok && child.exitCode === null) {
          this.ready = true;
          if (this.killedAt !== undefined) this.downtimes.push(Date.now() - this.killedAt);
          this.killedAt = undefined;
          return;
        }
      } catch {
        // Not listening yet.
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${this.name} did not start in ${this.startTimeoutMs} ms:\n${this.log}`);
  }

  /** SIGKILL, as a crash or an OOM kill does; resolves once the process is gone. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    this.stopping = true;
    this.kills += 1;
    this.ready = false;
    this.killedAt = Date.now();
    this.killedAtTimes.push(this.killedAt);
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  }

  /** SIGTERM (the service closes its server and database), SIGKILL if it takes too long. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    this.stopping = true;
    this.ready = false;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  }

  /**
   * The process's memory after a full garbage collection, in bytes.
   */
  async memoryAfterGc(): Promise<MemoryAfterGc> {
    const child = this.child;
    if (!this.probed || !child?.connected) throw new Error(`${this.name} runs no heap probe`);
    return new Promise((resolve, reject) => {
      const fail = (why: string) => {
        clearTimeout(timer);
        child.off("message", onAnswer);
        child.off("exit", onExit);
        reject(new Error(`${this.name} ${why} before the heap probe answered`));
      };
      const onExit = () => fail("exited");
      const timer = setTimeout(() => fail(`took ${heapProbeTimeoutMs} ms`), heapProbeTimeoutMs);
      const onAnswer = (answer: MemoryAfterGc) => {
        clearTimeout(timer);
        child.off("exit", onExit);
        resolve(answer);
      };
      child.once("message", onAnswer);
      child.once("exit", onExit);
      child.send("memory-after-gc");
    });
  }

  /** The process's resident memory now (VmRSS), in bytes. */
  rssBytes(): number {
    const pid = this.child?.pid;
    if (pid === undefined) throw new Error(`${this.name} is not running`);
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    if (!match) throw new Error(`no VmRSS for ${this.name}`);
    return Number(match[1]) * 1024;
  }

  /** The last lines the process printed (each cut short: log lines carry whole payloads), to explain a failure. */
  logTail(lines = 15, width = 300): string {
    return this.log
      .trimEnd()
      .split("\n")
      .slice(-lines)
      .map((line) => (line.length > width ? `${line.slice(0, width)}…` : line))
      .join("\n");
  }
}
