// JSON lines are written in batches (src/http/logger.ts): a line must still reach the file soon on a quiet service,
// and none may be lost when the process exits right after logging.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { jsonLines } from "../../src/http/logger.ts";

const loggerModule = join(import.meta.dirname, "../../src/http/logger.ts");

describe("JSON lines written in batches", () => {
  let dir: string | undefined;
  afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));

  const linesOf = (file: string) =>
    readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { msg: string });

  it("writes a lone line within a moment, without waiting for a batch to fill", async () => {
    dir = mkdtempSync(join(tmpdir(), "switchyard-log-"));
    const file = join(dir, "service.log");
    const log = pino({ level: "info" }, jsonLines(file));
    log.info("one request");
    await expect
      .poll(() => linesOf(file).map((line) => line.msg), { timeout: 2000, interval: 20 })
      .toEqual(["one request"]);
  });

  it("writes every pending line when the process exits at once", () => {
    dir = mkdtempSync(join(tmpdir(), "switchyard-log-"));
    const file = join(dir, "service.log");
    const script = `
      const { pino } = await import("pino");
      const { jsonLines } = await import(${JSON.stringify(loggerModule)});
      const log = pino({ level: "info" }, jsonLines(${JSON.stringify(file)}));
      await new Promise((resolve) => setTimeout(resolve, 50));
      for (let i = 0; i < 1000; i++) log.info("line " + i);
      process.exit(0);`;
    execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script]);
    const lines = linesOf(file);
    expect(lines).toHaveLength(1000);
    expect(lines.at(-1)?.msg).toBe("line 999");
  });
});
