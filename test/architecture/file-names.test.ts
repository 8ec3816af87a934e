// A file's name says what it holds, so a reader who meets `ci.ts` in a stack trace or a review knows which one it
// is. `index.ts` (a folder's public face) and `main.ts` (a process entry) are conventions, not names, and may repeat.
import { basename } from "node:path";
import fg from "fast-glob";
import { describe, expect, it } from "vitest";

const CONVENTIONS = new Set(["index.ts", "main.ts"]);

/** The names that more than one file of src/ carries, each with its paths. */
export function repeatedNames(paths: readonly string[]): Record<string, string[]> {
  const byName = new Map<string, string[]>();
  for (const path of paths) {
    const name = basename(path);
    if (!CONVENTIONS.has(name)) byName.set(name, [...(byName.get(name) ?? []), path]);
  }
  return Object.fromEntries([...byName].filter(([, holders]) => holders.length > 1));
}

describe("file names in src/", () => {
  it("are each used once (index.ts and main.ts aside)", async () => {
    const paths = await fg("src/**/*.{ts,mts,js,mjs}", { cwd: new URL("../..", import.meta.url).pathname });
    expect(repeatedNames(paths)).toEqual({});
  });

  it("are reported with every path that repeats them", () => {
    expect(
      repeatedNames(["src/a/ci.ts", "src/b/ci.ts", "src/a/index.ts", "src/b/index.ts", "src/c/x.ts"]),
    ).toEqual({ "ci.ts": ["src/a/ci.ts", "src/b/ci.ts"] });
  });
});
