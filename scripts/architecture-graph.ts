// Draws the import graph of src/ between its layers, from what dependency-cruiser reads and the layer map of
// .dependency-cruiser.mjs, as the Mermaid block of docs/architecture.md. `npm run docs:architecture` rewrites the
// block; `--check` only says whether it is up to date (test/architecture/ runs that).
import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { layers } from "../.dependency-cruiser.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const documentPath = `${root}docs/architecture.md`;
const BEGIN = "<!-- import graph: npm run docs:architecture -->";
const END = "<!-- end of import graph -->";

interface CruiseResult {
  modules: { source: string; dependencies: { resolved: string }[] }[];
}

/** The part of src/ a module belongs to: its top folder (`web` for src/web/queues/x.ts), or the file itself. */
function unitOf(source: string): string | null {
  const match = /^src\/([^/]+)/.exec(source);
  return match === null ? null : (match[1] as string);
}

const nodeId = (unit: string) => unit.replace(/[^A-Za-z0-9]/g, "_");

/** The Mermaid flowchart of the imports between the units of src/, each unit in its layer. */
export async function importGraph(): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      `${root}node_modules/dependency-cruiser/bin/dependency-cruise.mjs`,
      "src",
      "--config",
      ".dependency-cruiser.mjs",
      "--output-type",
      "json",
    ],
    { cwd: root, maxBuffer: 64 * 1024 * 1024 },
  ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }));
  const { modules } = JSON.parse(stdout) as CruiseResult;
  const edges = new Set<string>();
  const units = new Set<string>();
  for (const module of modules) {
    const from = unitOf(module.source);
    if (from === null) continue;
    units.add(from);
    for (const dependency of module.dependencies) {
      const to = unitOf(dependency.resolved);
      if (to !== null && to !== from) edges.add(`${nodeId(from)} --> ${nodeId(to)}`);
    }
  }
  const lines = ["```mermaid", "flowchart TB"];
  const placed = new Set<string>();
  for (const layer of layers) {
    const members = [...(layer.folders ?? []), ...(layer.files ?? [])].filter((unit) => units.has(unit));
    lines.push(`  subgraph layer_${nodeId(layer.name)}["${layer.name}"]`);
    for (const unit of members) {
      const label = unit.endsWith(".ts") ? unit : `${unit}/`;
      lines.push(`    ${nodeId(unit)}["${label}"]`);
      placed.add(unit);
    }
    lines.push("  end");
  }
  const unplaced = [...units].filter((unit) => !placed.has(unit));
  if (unplaced.length > 0)
    throw new Error(`no layer in .dependency-cruiser.mjs holds ${unplaced.join(", ")}`);
  lines.push(...[...edges].sort().map((edge) => `  ${edge}`), "```");
  return lines.join("\n");
}

/** docs/architecture.md with its import graph redrawn. */
export async function redrawnDocument(): Promise<{ current: string; redrawn: string }> {
  const current = await readFile(documentPath, "utf8");
  const start = current.indexOf(BEGIN);
  const end = current.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/architecture.md lacks the markers ${BEGIN} … ${END}`);
  const redrawn = `${current.slice(0, start + BEGIN.length)}\n\n${await importGraph()}\n\n${current.slice(end)}`;
  return { current, redrawn };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { current, redrawn } = await redrawnDocument();
  if (process.argv.includes("--check")) {
    if (current !== redrawn) {
      console.error("docs/architecture.md: the import graph is out of date; run npm run docs:architecture");
      process.exitCode = 1;
    }
  } else if (current !== redrawn) {
    await writeFile(documentPath, redrawn);
    console.log("docs/architecture.md: import graph redrawn");
  }
}
