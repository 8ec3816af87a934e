// Entry of the `switchyard` command of this repository (package.json bin → switchyard.js → here).
import { loadConfig, loadDotEnv } from "../config.ts";
import { terminalContext } from "./terminal.ts";
import { runCli } from "./program.ts";

loadDotEnv();
process.exitCode = await runCli(process.argv.slice(2), { ...terminalContext(), config: () => loadConfig() });
