// What logging a request costs: the CPU time a node:http server spends per request answering PONG, without a request
// logger, with the service's (src/http/request-log.ts) and with the one Probot's server used (pino-http, as Probot
// configures it), each writing JSON lines at info (the default level) as a production service does: to a file, or
// with --to pipe to its standard output read by this process, as a container's log collector reads it. Each server
// runs in its own process and measures its own CPU time (process.cpuUsage, all threads) over the measured requests
// only; autocannon sends them from this process over 10 kept-alive connections. Rounds alternate the variants, so a
// change in the machine's load hits them alike; a logger's cost is the median over the rounds of its figure minus
// the bare server's in the same round. The same is measured in process, without the network.
//   npm run bench:logging [-- --requests 30000 --rounds 3 --to file|pipe]
import { fork } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { createServer, IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { pino } from "pino";
import { jsonLines } from "../../src/http/logger.ts";
import { requestLogger } from "../../src/http/request-log.ts";

const variants = ["none", "switchyard", "probot"] as const;
type Variant = (typeof variants)[number];
type Log = (req: IncomingMessage, res: ServerResponse) => void;

/** Where the lines go: a file's path, or the process's standard output (1). */
async function loggerOf(variant: Variant, output: string | number): Promise<Log> {
  const log = pino({ level: "info" }, jsonLines(output));
  if (variant === "none") return () => undefined;
  if (variant === "switchyard") return requestLogger(log);
  const path = new URL("server/handlers/http-logger.js", import.meta.resolve("probot")).href;
  const { httpLogger } = (await import(path)) as { httpLogger: (log: unknown, options?: unknown) => Log };
  return httpLogger(log);
}

/** The child: serves PONG with the variant's logger, and reports its CPU time between "start" and "stop". */
async function serve(variant: Variant, output: string): Promise<void> {
  const logRequest = await loggerOf(variant, output === "-" ? 1 : output);
  const server = createServer((req, res) => {
    logRequest(req, res);
    res.writeHead(200, { "content-type": "text/plain" }).end("PONG");
  });
  server.listen(0, "127.0.0.1", () => process.send!({ port: (server.address() as AddressInfo).port }));
  let started = process.cpuUsage();
  process.on("message", (message: string) => {
    if (message === "start") started = process.cpuUsage();
    if (message === "stop") {
      const used = process.cpuUsage(started);
      process.send!({ cpuMicros: used.user + used.system });
    }
    if (message === "exit") server.close(() => process.exit(0));
  });
}

async function measure(variant: Variant, requests: number, dir: string, toPipe: boolean): Promise<number> {
  const file = join(dir, `${variant}.log`);
  const child = fork(import.meta.filename, ["--serve", variant, toPipe ? "-" : file], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", toPipe ? "pipe" : "ignore", "inherit", "ipc"],
  });
  let piped = 0;
  child.stdout?.on("data", (chunk: Buffer) => (piped += chunk.length));
  const next = () => new Promise<Record<string, number>>((resolve) => child.once("message", resolve));
  const { port } = await next();
  const load = (amount: number) =>
    autocannon({ url: `http://127.0.0.1:${port}/ping`, connections: 10, amount, pipelining: 1 });
  await load(Math.ceil(requests / 5));
  child.send("start");
  const result = await load(requests);
  child.send("stop");
  const { cpuMicros } = await next();
  child.send("exit");
  await new Promise((resolve) => child.once("exit", resolve));
  const written = toPipe ? piped : statSync(file, { throwIfNoEntry: false })?.size;
  if (variant !== "none" && !written) throw new Error(`${variant} wrote no log`);
  return cpuMicros! / (result.requests.total + result.non2xx);
}

/**
 * The logger's own work, without the network: a request and its response made in memory, logged, and closed, in
 * batches that let pino's writes to the file go out in between; the same without the logger is subtracted.
 */
async function inProcess(variant: Variant, requests: number, dir: string): Promise<number> {
  const logRequest = await loggerOf(variant, join(dir, `${variant}-in-process.log`));
  const socket = new Socket();
  const started = process.cpuUsage();
  for (let done = 0; done < requests; done += 1000) {
    for (let i = 0; i < 1000; i++) {
      const req = new IncomingMessage(socket);
      req.method = "GET";
      req.url = "/v1/getQueue?token=sy_x";
      req.headers = { "user-agent": "bench", "x-api-token": "sy_x", "content-type": "application/json" };
      const res = new ServerResponse(req);
      logRequest(req, res);
      res.statusCode = 200;
      res.emit("close");
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  const used = process.cpuUsage(started);
  return (used.user + used.system) / requests;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      serve: { type: "string" },
      requests: { type: "string", default: "30000" },
      rounds: { type: "string", default: "3" },
      to: { type: "string", default: "file" },
    },
    allowPositionals: true,
  });
  if (values.serve !== undefined) return serve(values.serve as Variant, process.argv.at(-1)!);
  const requests = Number(values.requests);
  const toPipe = values.to === "pipe";
  const load = () =>
    loadavg()
      .map((value) => value.toFixed(2))
      .join(" ");
  console.log(`load average before: ${load()}`);
  const dir = mkdtempSync(join(tmpdir(), "switchyard-bench-logging-"));
  const results = new Map<Variant, number[]>(variants.map((variant) => [variant, []]));
  try {
    for (let round = 0; round < Number(values.rounds); round++) {
      for (const variant of variants)
        results.get(variant)!.push(await measure(variant, requests, dir, toPipe));
    }
    const inProcessRequests = requests * 5;
    const direct = new Map<Variant, number[]>(variants.map((variant) => [variant, []]));
    for (let round = 0; round < Number(values.rounds); round++) {
      for (const variant of variants)
        direct.get(variant)!.push(await inProcess(variant, inProcessRequests, dir));
    }
    report(
      `In process, ${inProcessRequests} requests made in memory, lines to a file`,
      direct,
      values.rounds!,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const to = toPipe ? "lines to a pipe" : "lines to a file";
  report(`Served over HTTP, ${requests} requests over 10 connections, ${to}`, results, values.rounds!);
  console.log(`load average after: ${load()}`);
}

function report(title: string, results: Map<Variant, number[]>, rounds: string): void {
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const bare = results.get("none")!;
  console.log(`${title} × ${rounds} rounds: CPU time per request, median (each round)`);
  for (const variant of variants) {
    const all = results.get(variant)!;
    const costs = all.map((value, round) => value - bare[round]!);
    const eachCost = costs.map((value) => value.toFixed(1)).join(", ");
    const cost = variant === "none" ? "" : `  → logging costs ${median(costs).toFixed(1)} µs (${eachCost})`;
    const each = all.map((value) => value.toFixed(1)).join(", ");
    console.log(`  ${variant.padEnd(10)} ${median(all).toFixed(1).padStart(6)} µs (${each})${cost}`);
  }
}

await main();
