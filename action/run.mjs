// The Action's step: turns its inputs (INPUT_* variables) into `switchyard upload` and `switchyard
// set-impacted-targets` runs of the installed client. The service and the token go to the client as SWITCHYARD_URL
// and SWITCHYARD_TOKEN, never on a command line other processes can read; GitHub Actions' own variables give the
// rest (repository, commit, pull request).
import { spawnSync } from "node:child_process";

const input = (name) => (process.env[`INPUT_${name}`] ?? "").trim();
const lines = (text) =>
  text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "");

/** Runs the client, its output going to the job's log; answers whether it succeeded. */
function switchyard(args) {
  console.log(`switchyard ${args.join(" ")}`);
  const result = spawnSync("switchyard", args, {
    stdio: "inherit",
    env: {
      ...process.env,
      SWITCHYARD_URL: input("URL"),
      SWITCHYARD_TOKEN: input("TOKEN"),
      ...(input("ORG") === "" ? {} : { SWITCHYARD_ORG: input("ORG") }),
    },
  });
  if (result.error !== undefined) console.log(`::error::cannot run switchyard: ${result.error.message}`);
  return result.status === 0;
}

let ok = true;
const globs = lines(input("JUNIT_PATHS"));
if (globs.length > 0) {
  const variant = input("VARIANT") === "" ? [] : ["--variant", input("VARIANT")];
  ok = switchyard(["upload", ...globs.flatMap((glob) => ["--junit-paths", glob]), ...variant]) && ok;
}
const targets = lines(input("IMPACTED_TARGETS"));
const targetsFile = input("IMPACTED_TARGETS_FILE");
if (targets.length > 0 || targetsFile !== "") {
  const which =
    targetsFile !== ""
      ? ["--targets-file", targetsFile]
      : targets.length === 1 && targets[0] === "ALL"
        ? ["--all"]
        : targets.flatMap((target) => ["--target", target]);
  ok = switchyard(["set-impacted-targets", ...which]) && ok;
}
if (globs.length === 0 && targets.length === 0 && targetsFile === "") {
  console.log("::warning::nothing to do: give junit-paths, impacted-targets or impacted-targets-file");
}
process.exitCode = ok ? 0 : 1;
