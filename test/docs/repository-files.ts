// The repository as the docs tests read it: its root, its files' text, and its source files.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

export const root = resolve(import.meta.dirname, "../..");
export const read = (path: string) => readFileSync(join(root, path), "utf8");

/** The source files of the repository (not node_modules, not built output), for what they read. */
export function sources(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    if (name === "node_modules" || name === "dist") return [];
    if (statSync(join(root, path)).isDirectory()) return sources(path);
    return /\.(ts|mjs|js)$/.test(name) ? [path] : [];
  });
}
