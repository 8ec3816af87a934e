import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SaxesParser } from "saxes";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CommanderError } from "commander";
import { runCli } from "../../src/cli/program.ts";
import { failOnUntestedMerges } from "../../src/cli/simulate-command.ts";
import { loadConfig } from "../../src/config.ts";
import { parsePolicies } from "../../src/simulator/policy-spec.ts";
import { compare } from "../../src/simulator/simulate.ts";
import { typicalDay } from "../simulator/days.ts";
import { testsOnTheBareTarget } from "../simulator/wrong-queue.ts";

async function simulate(...argv: string[]) {
  let out = "";
  let err = "";
  const code = await runCli(["simulate", ...argv], {
    out: (text) => (out += text),
    err: (text) => (err += text),
    config: () => loadConfig({}),
    now: () => Date.parse("2026-11-21T10:00:00.000Z"),
  });
  return { code, out, err };
}

/** The elements of an XML document, in order; throws when it is not well-formed. */
function elementsOf(xml: string): string[] {
  const names: string[] = [];
  const parser = new SaxesParser({ xmlns: true });
  parser.on("opentag", (tag) => names.push(`${tag.uri}|${tag.local}`));
  parser.on("error", (error) => {
    throw error;
  });
  parser.write(xml).close();
  return names;
}

describe("switchyard simulate", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "switchyard-simulate-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("prints the figures of the flags' policy next to the oracle and serial, and the queue's length", async () => {
    const { code, out, err } = await simulate(
      ...["--arrivals", "12", "--ci", "20m", "--jitter", "10%", "--broken", "0.1", "--flaky", "5%"],
      ...[
        "--hours",
        "3",
        "--seed",
        "2",
        "--concurrency",
        "4",
        "--pending-failure-depth",
        "1",
        "--optimistic",
      ],
    );
    expect(err).toBe("");
    expect(code).toBe(0);
    const lines = out.split("\n");
    expect(lines[0]).toBe("3 h at 12 PRs/h, CI 20 min ±10%, 10% broken, 5% flaky; seed 2");
    expect(lines[1]).toMatch(
      /^policy +merged\/h +% oracle +p50 min +p95 min +CI runs\/merged +CI min\/merged +innocent rejected\/day +broken merged +untested merges$/,
    );
    expect(lines.slice(2, 6).map((line) => line.split(/ {2,}/)[0])).toEqual([
      "oracle k=1",
      "oracle k=4",
      "serial",
      "k=4,d=1,optimistic",
    ]);
    expect(out).toContain("Queue length over the day (PRs waiting or under test), k=4,d=1,optimistic");
  });

  it("plays --lanes beside the same policy in single mode, on a stress day", async () => {
    const { code, out, err } = await simulate(
      ...["--arrivals", "30", "--ci", "30m", "--hours", "4", "--concurrency", "4", "--lanes", "4"],
    );
    expect(err).toBe("");
    expect(code).toBe(0);
    const lines = out.split("\n");
    expect(lines[0]).toBe("4 h at 30 PRs/h, CI 30 min ±10%, 10% broken, 5% flaky, 10% impact ALL; seed 1");
    expect(lines.slice(2, 7).map((line) => line.split(/ {2,}/)[0])).toEqual([
      "oracle k=1",
      "oracle k=4",
      "serial",
      "k=4",
      "k=4,lanes=4",
    ]);
    const compared = await simulate(
      ...["--hours", "2", "--impacts-all", "25%", "--compare", "k=2;k=2,lanes=3"],
    );
    expect(compared.out.split("\n")[0]).toContain("25% impact ALL");
    expect(compared.out).toMatch(/^k=2,lanes=3 /m);
  });

  it("prints where each policy's CI minutes went with --ci-spend, and only then", async () => {
    const argv = ["--hours", "3", "--compare", "k=4;k=8,auto"];
    const { code, out } = await simulate(...argv, "--ci-spend");
    expect(code).toBe(0);
    const [figures, spend] = out.split("\n\n");
    expect(spend?.split("\n")[0]).toMatch(
      /^CI min\/merged in runs that: +passed +failed on a broken PR +flaked +were cancelled +failed runs per broken PR$/,
    );
    const rows = (spend ?? "").trim().split("\n").slice(1);
    expect(rows.map((row) => row.split(/ {2,}/)[0])).toEqual(["k=4", "k=8,auto"]);
    // The parts add up to the comparison's CI minutes per merged PR (each printed to a tenth).
    const cells = (table: string | undefined, label: string) =>
      (table ?? "")
        .split("\n")
        .find((line) => line.startsWith(`${label} `))
        ?.split(/ {2,}/)
        .map(Number) ?? [];
    const parts = cells(spend, "k=8,auto").slice(1, 5);
    expect(parts).toHaveLength(4);
    expect(parts.reduce((a, b) => a + b, 0)).toBeCloseTo(cells(figures, "k=8,auto")[6] ?? NaN, 0);
    expect((await simulate(...argv)).out).not.toContain("CI min/merged in runs that:");
  });

  it("compares policies on the same pooled days and draws them all with --svg", async () => {
    const svg = join(dir, "queue.svg");
    const { code, out } = await simulate(
      ...["--hours", "2", "--seeds", "3", "--compare", "k=2;k=4,optimistic", "--svg", svg],
    );
    expect(code).toBe(0);
    expect(out.split("\n")[0]).toContain("3 days pooled (seeds 1–3)");
    expect(out).not.toContain("Queue length over the day");
    const elements = elementsOf(readFileSync(svg, "utf8"));
    expect(elements[0]).toBe("http://www.w3.org/2000/svg|svg");
    // Every policy but serial is a line: the oracles for 1, 2 and 4 slots, then k=2 and k=4.
    expect(elements.filter((name) => name.endsWith("|polyline"))).toHaveLength(5);
  });

  it.each([
    [["--ci", "soon"], '--ci takes a duration such as 30m, 1h30m or 90s, got "soon"'],
    [["--jitter", "100%"], '--jitter takes a share such as 10% or 0.1, below 100%, got "100%"'],
    [["--broken", "1.5"], '--broken takes a share such as 10% or 0.1, at most 100%, got "1.5"'],
    [["--arrivals", "0"], '--arrivals takes a number greater than 0, got "0"'],
    [["--seeds", "0"], '--seeds takes a whole number from 1 to 1000, got "0"'],
    [["--concurrency", "two"], "--concurrency needs a whole number of at least 1, got two"],
    [["--compare", "k=4;fast"], '--compare in "fast": fast is not a setting'],
    [["--lanes", "0"], "--lanes needs a whole number of at least 1, got 0"],
    [["--impacts-all", "120%"], '--impacts-all takes a share such as 10% or 0.1, at most 100%, got "120%"'],
    [["--from-history", "/nonexistent/runs.csv"], "cannot read /nonexistent/runs.csv"],
  ])("refuses %j with a clear error", async (argv, message) => {
    const { code, out, err } = await simulate(...argv);
    expect(code).toBe(1);
    expect(out).toBe("");
    expect(err).toContain(`error: ${message}`);
  });

  it("takes the day's figures from a history of runs", async () => {
    const history = join(dir, "runs.csv");
    writeFileSync(
      history,
      [
        "pr,started_at,finished_at,conclusion",
        "1,2026-11-02T09:00:00Z,2026-11-02T09:20:00Z,failure",
        "1,2026-11-02T09:30:00Z,2026-11-02T09:50:00Z,success",
        "2,2026-11-02T10:00:00Z,2026-11-02T10:40:00Z,failure",
        "3,2026-11-02T11:00:00Z,2026-11-02T11:30:00Z,success",
      ].join("\n"),
    );
    const { code, out } = await simulate("--from-history", history, "--hours", "2");
    expect(code).toBe(0);
    expect(out.split("\n")[0]).toBe(
      "2 h at 1 PRs/h, CI durations from history (4 runs, mean 27.5 min), 33.3% broken, 33.3% flaky; seed 1",
    );
    const both = await simulate("--from-history", history, "--arrivals", "20", "--flaky", "1%");
    expect(both.code).toBe(1);
    expect(both.err).toContain("error: --from-history sets --arrivals, --flaky: give one or the other");
  });

  it("prints every untested merge and exits 1", () => {
    const model = { ...typicalDay, hours: 2 };
    const policies = parsePolicies("k=4");
    let err = "";
    const context = {
      out: () => {},
      err: (text: string) => (err += text),
      config: () => loadConfig({}),
      now: Date.now,
    };
    expect(() => failOnUntestedMerges(compare({ model, policies, seed: 1, days: 1 }), context)).not.toThrow();
    const wrong = compare({ model, policies, seed: 1, days: 1, step: testsOnTheBareTarget });
    expect(() => failOnUntestedMerges(wrong, context)).toThrow(CommanderError);
    expect(err).toMatch(/^The target moved to commits no passed run tested:\n {2}k=4, seed 1: /);
  });
});
