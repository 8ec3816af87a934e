// Entry of the installable `switchyard` (packages/cli, bundled into one file by packages/cli/build.mjs): the client
// commands alone, with the package's own version.
import packageJson from "../../packages/cli/package.json" with { type: "json" };
import { buildClientProgram, runProgram } from "./client-program.ts";
import { terminalContext } from "./terminal.ts";

const context = terminalContext();
process.exitCode = await runProgram(
  buildClientProgram(context, packageJson.version),
  process.argv.slice(2),
  context,
);
