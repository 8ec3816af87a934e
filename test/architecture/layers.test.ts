import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);

describe("the layers of src/", () => {
  it("import only inwards, without cycles (the rules of .dependency-cruiser.mjs)", async () => {
    const { stdout } = await run(
      "npx",
      ["depcruise", "src", "--config", ".dependency-cruiser.mjs", "--output-type", "json"],
      { maxBuffer: 64 * 1024 * 1024 },
    ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }));
    const { summary } = JSON.parse(stdout) as {
      summary: { violations: { rule: { name: string }; from: string; to: string }[] };
    };
    const violations = summary.violations.map(({ rule, from, to }) => `${rule.name}: ${from} → ${to}`);
    expect(violations).toEqual([]);
  }, 60_000);
});
