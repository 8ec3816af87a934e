// Summarises a V8 CPU profile (node --cpu-prof, or BENCH_CPU_PROF=<dir> with the benchmarks): the functions that took
// the most time themselves ("self"), then the functions under which the most time went, what they called included
// ("total": a sample counts once for each function on its stack). A window in seconds from the profile's start (such as
// one upload of bench:upload, whose service profile holds both) limits the summary to its samples; the busy time of
// each second is printed first, to find it.
// `tsx test/bench/profile-summary.ts <file.cpuprofile> [rows] [from-to]`.
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

const [file, rowsArgument, windowArgument] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file!, "utf8")) as {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
};
const rows = Number(rowsArgument ?? 30);
const [from, to] = (windowArgument ?? "0-Infinity").split("-").map(Number) as [number, number];
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const isIdle = (id: number) => byId.get(id)?.callFrame.functionName === "(idle)";
const selfMicros = new Map<number, number>();
const busyBySecond: number[] = [];
let at = 0;
profile.samples.forEach((id, i) => {
  const micros = profile.timeDeltas[i] ?? 0;
  at += micros / 1e6;
  if (!isIdle(id)) busyBySecond[Math.floor(at)] = (busyBySecond[Math.floor(at)] ?? 0) + micros;
  if (at >= from && at <= to) selfMicros.set(id, (selfMicros.get(id) ?? 0) + micros);
});
const total = [...selfMicros.values()].reduce((sum, t) => sum + t, 0);

const where = (node: ProfileNode) => {
  const url = node.callFrame.url
    .replace(/^.*node_modules\//, "")
    .replace(/^file:\/\/.*\/(dist|src)\//, "$1/");
  return `${node.callFrame.functionName || "(anonymous)"} ${url}:${node.callFrame.lineNumber + 1}`;
};
const parentOf = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
const selfByFunction = new Map<string, number>();
const totalByFunction = new Map<string, number>();
for (const [id, micros] of selfMicros) {
  const name = where(byId.get(id)!);
  selfByFunction.set(name, (selfByFunction.get(name) ?? 0) + micros);
  const onStack = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at))
    onStack.add(where(byId.get(at)!));
  for (const caller of onStack) totalByFunction.set(caller, (totalByFunction.get(caller) ?? 0) + micros);
}
const share = (micros: number) => `${((100 * micros) / total).toFixed(1).padStart(5)}%`;
console.log(`${file}: ${(total / 1000).toFixed(0)} ms sampled`);
console.log(
  `busy ms by second: ${busyBySecond
    .map((micros, second) => `${second}:${(micros / 1000).toFixed(0)}`)
    .filter(Boolean)
    .join(" ")}`,
);
for (const [title, times] of [
  ["self", selfByFunction],
  ["total", totalByFunction],
] as const) {
  console.log(`-- ${title}`);
  for (const [name, micros] of [...times].sort((a, b) => b[1] - a[1]).slice(0, rows)) {
    console.log(`${share(micros)}  ${name}`);
  }
}
