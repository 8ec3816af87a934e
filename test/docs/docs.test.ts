// The documentation (README.md, docs/*.md, packages/cli/README.md) against the repository and the code: every relative
// link and anchor resolves, and every environment variable, command line command and option, npm script and metric it
// names exists. What exists is read from the code (the configuration schema, the commander program, the metrics'
// sources, package.json), so a page written later is checked against what is there when it is merged.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/program.ts";
import { ciVariables } from "../../src/cli/ci-environment.ts";
import { environmentSchema, loadConfig } from "../../src/config.ts";
import { processMetricsRegistry } from "../../src/metrics/process-metrics.ts";
import { anchorsOf, codeOf, linksOf } from "./markdown.ts";
import { read, root, sources } from "./repository-files.ts";

const pages = [
  "README.md",
  "packages/cli/README.md",
  ...readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];
/** Every page's code: its code blocks and inline code spans, where names of things are written. */
const code = pages.map((page) => ({ page, code: codeOf(read(page)) }));

/** `found` lists, by page, the names in it that `known` does not hold (and finds some: the test is not vacuous). */
function unknownNames(
  found: (page: string, code: string) => Iterable<string>,
  known: (name: string) => boolean,
) {
  const unknown: string[] = [];
  let names = 0;
  for (const { page, code: text } of code) {
    for (const name of new Set(found(page, text))) {
      names++;
      if (!known(name)) unknown.push(`${page}: ${name}`);
    }
  }
  expect(names).toBeGreaterThan(5);
  return unknown;
}
describe("links", () => {
  it("every relative link points at a file of the repository, and every anchor at a heading of its page", () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const link of linksOf(read(page))) {
        if (/^[a-z][a-z+.-]*:/i.test(link)) continue; // https:, mailto:…
        const [path, anchor] = link.split("#", 2) as [string, string | undefined];
        const target = path === "" ? join(root, page) : resolve(dirname(join(root, page)), decodeURI(path));
        if (!existsSync(target)) broken.push(`${page}: ${link} (no ${relative(root, target)})`);
        else if (anchor !== undefined && anchor !== "" && target.endsWith(".md")) {
          if (!anchorsOf(readFileSync(target, "utf8")).has(anchor))
            broken.push(`${page}: ${link} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});

describe("environment variables", () => {
  /** What the code reads: the service's schema, the client's CI variables, and every process.env read. */
  const readByCode = new Set<string>([...Object.keys(environmentSchema.shape), ...ciVariables]);
  for (const file of [...sources("src"), ...sources("test"), ...sources("scripts")]) {
    // process.env.NAME, env["NAME"], and helpers such as fromEnv("NAME").
    const reads = /\benv(?:\.|\[["'])([A-Z][A-Z0-9_]*)|[eE]nv\w*\(\s*["']([A-Z][A-Z0-9_]*)["']/g;
    for (const match of read(file).matchAll(reads)) readByCode.add((match[1] ?? match[2]) as string);
  }
  /** Constants of the code (KEY_CACHE_CAPACITY) that the docs may name: not variables, but they exist. */
  const constants = new Set(
    sources("src").flatMap((file) =>
      [...read(file).matchAll(/\bconst ([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\s*[=:]/g)].map(
        (match) => match[1] as string,
      ),
    ),
  );

  it("every variable the docs name is one the code reads (or a constant of the code)", () => {
    // NAMES_WITH_UNDERSCORES in code; single words (PORT, HOST) are too often something else (ALL, GET).
    const named = (_: string, text: string) =>
      [...text.matchAll(/(?<![\w./-])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?![\w*-])/g)].map(
        (match) => match[1] as string,
      );
    expect(unknownNames(named, (name) => readByCode.has(name) || constants.has(name))).toEqual([]);
  });

  it("every variable of the service's configuration is documented in docs/configuration.md and .env.example", () => {
    const configuration = read("docs/configuration.md");
    const example = read(".env.example");
    for (const name of Object.keys(environmentSchema.shape)) {
      expect(configuration, name).toContain(name);
      expect(example, name).toContain(name);
    }
    // The defaults the configuration page states are the schema's.
    expect(configuration).toContain(`\`${loadConfig({}).port}\``);
  });
});

describe("command line", () => {
  const program = buildProgram({
    out: () => {},
    err: () => {},
    now: Date.now,
    config: () => loadConfig({}),
  });
  const commandNamed = (parent: Command, name: string) =>
    parent.commands.find((command) => command.name() === name || command.aliases().includes(name));
  const optionsOf = (command: Command) =>
    new Set([
      "--help",
      "-h",
      ...(command === program ? ["--version", "-V"] : []),
      ...command.options.flatMap((option) =>
        [option.long, option.short].filter((flag) => flag !== undefined),
      ),
    ]);

  /** Each `switchyard …` invocation in the docs' code: its words up to `--` or the end of the line. */
  function invocations(text: string): string[][] {
    // Continued lines joined; lines of docker commands left out (there `switchyard` is the image or the service).
    const joined = text
      .replace(/\\\n\s*/g, " ")
      .split("\n")
      .filter((line) => !/\bdocker\s/.test(line))
      .join("\n");
    return [...joined.matchAll(/(?:^|[\s(`$])switchyard(?: --)? ((?:(?!\s--\s)[^\n|`)])+)/gm)].map((match) =>
      (match[1] as string).trim().split(/\s+/),
    );
  }

  it("every command, subcommand and option the docs show is one the tool has", () => {
    const unknown: string[] = [];
    let checked = 0;
    for (const { page, code: text } of code) {
      for (const words of invocations(text)) {
        checked++;
        const [name, ...rest] = words;
        // Prose that names the tool ("sent by switchyard upload's client") is no invocation.
        if (name !== undefined && /^[a-z]/.test(name) && !/^[a-z][a-z-]*$/.test(name)) continue;
        if (name === undefined || name.startsWith("-") || !/^[a-z]/.test(name)) {
          // `switchyard --help`, or an option of the program itself.
          if (name?.startsWith("-") && !optionsOf(program).has(name))
            unknown.push(`${page}: switchyard ${name}`);
          continue;
        }
        if (name === "<command>") continue;
        let command = commandNamed(program, name);
        if (command === undefined) {
          unknown.push(`${page}: switchyard ${name}`);
          continue;
        }
        const sub =
          rest[0] !== undefined && command.commands.length > 0 ? commandNamed(command, rest[0]) : undefined;
        if (
          command.commands.length > 0 &&
          rest[0] !== undefined &&
          !rest[0].startsWith("-") &&
          !rest[0].startsWith("[")
        ) {
          if (sub === undefined) unknown.push(`${page}: switchyard ${name} ${rest[0]}`);
        }
        command = sub ?? command;
        for (const word of rest) {
          const flag = /^(--?[a-z][a-z-]*)/.exec(word)?.[1];
          if (flag !== undefined && !optionsOf(command).has(flag))
            unknown.push(`${page}: switchyard ${name} ${flag}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(20);
    expect(unknown).toEqual([]);
  });

  it("every npm script the docs run is in package.json, and none runs npx switchyard", () => {
    const scripts = JSON.parse(read("package.json")).scripts as Record<string, string>;
    const named = (_: string, text: string) =>
      [...text.matchAll(/\bnpm run(?: -s)? ([a-z][\w:-]*)(…)?/g)]
        // `npm run bench:…` stands for several.
        .filter((match) => match[2] === undefined && !(match[1] as string).endsWith(":"))
        .map((match) => match[1] as string);
    expect(unknownNames(named, (name) => name in scripts)).toEqual([]);
    for (const page of pages) expect(read(page), page).not.toMatch(/npx\s+switchyard/);
  });
});

describe("metrics", () => {
  const queueMetrics = new Set(
    sources("src/metrics").flatMap((file) =>
      [...read(file).matchAll(/"(mq_[a-z0-9_]+)"/g)].map((match) => match[1]),
    ),
  );

  it("every metric the docs name is one the service exposes", async () => {
    const processMetrics = new Set(
      (await processMetricsRegistry().getMetricsAsJSON()).map((metric) => metric.name as string),
    );
    const named = (_: string, text: string) =>
      [...text.matchAll(/\b((?:mq|process|nodejs)_[a-z0-9_]+)/g)].map((match) =>
        (match[1] as string).replace(/_(bucket|sum|count)$/, ""),
      );
    const known = (name: string) => queueMetrics.has(name) || processMetrics.has(name);
    expect(unknownNames(named, known)).toEqual([]);
  });

  it("every queue metric is documented in docs/monitoring.md", () => {
    const monitoring = read("docs/monitoring.md");
    expect(queueMetrics.size).toBeGreaterThan(0);
    for (const name of queueMetrics) expect(monitoring, name).toContain(`\`${name}`);
  });
});

describe("Node versions", () => {
  const engines = JSON.parse(read("package.json")).engines.node as string;
  /** The lowest version of each supported major, as engines writes them: ^20.19.0 || ^22.13.0 || ^24.0.0. */
  const supported = [...engines.matchAll(/\^(\d+)\.(\d+)\.\d+/g)].map((match) => ({
    major: match[1] as string,
    minor: match[2] as string,
  }));

  it("the README states the versions engines allows, and the client allows the same", () => {
    expect(supported.map((version) => version.major)).toEqual(["20", "22", "24"]);
    const readme = read("README.md");
    for (const { major, minor } of supported) {
      expect(readme).toContain(minor === "0" ? major : `${major}.${minor}`);
    }
    expect(JSON.parse(read("packages/cli/package.json")).engines.node).toBe(engines);
  });

  it("the image runs a supported, maintained LTS line", () => {
    const bases = [...read("Dockerfile").matchAll(/^FROM node:(\d+)-/gm)].map((match) => match[1]);
    expect(bases.length).toBeGreaterThan(0);
    for (const major of bases) {
      expect(supported.map((version) => version.major)).toContain(major);
      // Node 20's support ended in April 2026.
      expect(Number(major)).toBeGreaterThanOrEqual(22);
    }
  });
});
