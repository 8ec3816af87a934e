// Entry of the `switchyard` command (package.json bin → switchyard.js → here).
import { loadConfig, loadDotEnv } from "../config.ts";
import { runCli } from "./program.ts";

loadDotEnv();
const code = await runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  config: () => loadConfig(),
  now: Date.now,
});
process.exitCode = code;
