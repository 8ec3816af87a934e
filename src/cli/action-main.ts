// Entry of the GitHub Action (action/action.yml), bundled with the client commands into action/dist/index.mjs, which
// the runner starts with its own Node: nothing is installed at run time. It turns the Action's inputs into
// `switchyard upload` and `switchyard set-impacted-targets` runs, in this process, and writes their results as the
// step's outputs. GitHub Actions' own variables give the rest (repository, commit, pull request), as they do to the
// client run by hand; the service and the token reach the client as SWITCHYARD_URL and SWITCHYARD_TOKEN.
import { appendFileSync } from "node:fs";
import packageJson from "../../packages/cli/package.json" with { type: "json" };
import { buildClientProgram, runProgram } from "./client-program.ts";
import type { ClientContext } from "./io.ts";

/** An input as the runner passes it: INPUT_ and its name in capitals, spaces as underscores, hyphens kept. */
const input = (name: string) =>
  (process.env[`INPUT_${name.replaceAll(" ", "_").toUpperCase()}`] ?? "").trim();
const lines = (text: string) =>
  text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "");

/** A workflow command's message, escaped as the runner reads it back. */
const escapeData = (text: string) =>
  text.replaceAll("%", "%25").replaceAll("\r", "%0D").replaceAll("\n", "%0A");

const context: ClientContext = {
  out: (text) => process.stdout.write(text),
  // The client's "error: …" lines become error annotations on the run (and the pull request).
  err: (text) => {
    const message = /^error: ([\s\S]*?)\n?$/.exec(text)?.[1];
    if (message === undefined) process.stderr.write(text);
    else process.stdout.write(`::error::${escapeData(message)}\n`);
  },
  now: Date.now,
  output: (name, value) => {
    const file = process.env.GITHUB_OUTPUT;
    if (file !== undefined && file !== "") appendFileSync(file, `${name}=${value}\n`);
  },
};

/** Runs one client command; answers whether it succeeded. */
async function switchyard(args: string[]): Promise<boolean> {
  context.out(`switchyard ${args.join(" ")}\n`);
  try {
    return (await runProgram(buildClientProgram(context, packageJson.version), args, context)) === 0;
  } catch (error) {
    context.err(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return false;
  }
}

process.env.SWITCHYARD_URL = input("url");
process.env.SWITCHYARD_TOKEN = input("token");
if (input("org") !== "") process.env.SWITCHYARD_ORG = input("org");

let ok = true;
const globs = lines(input("junit-paths"));
if (globs.length > 0) {
  const variant = input("variant") === "" ? [] : ["--variant", input("variant")];
  ok = (await switchyard(["upload", ...globs.flatMap((glob) => ["--junit-paths", glob]), ...variant])) && ok;
}
const targets = lines(input("impacted-targets"));
const targetsFile = input("impacted-targets-file");
if (targets.length > 0 || targetsFile !== "") {
  const which =
    targetsFile !== ""
      ? ["--targets-file", targetsFile]
      : targets.length === 1 && targets[0] === "ALL"
        ? ["--all"]
        : targets.flatMap((target) => ["--target", target]);
  ok = (await switchyard(["set-impacted-targets", ...which])) && ok;
}
if (globs.length === 0 && targets.length === 0 && targetsFile === "") {
  context.out("::warning::nothing to do: give junit-paths, impacted-targets or impacted-targets-file\n");
}
process.exitCode = ok ? 0 : 1;
