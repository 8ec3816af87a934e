// The installable client as a user gets it: `npm pack` of packages/cli (which bundles it), installed from the
// tarball into an empty directory with npm offline: it has no dependencies to fetch.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const packageDir = new URL("../../packages/cli/", import.meta.url).pathname;

export interface PackedCli {
  /** Where it was installed: <app>/node_modules/@switchyard-ci/cli. */
  app: string;
  /** The `switchyard` executable npm linked. */
  bin: string;
  remove(): void;
}

export async function installPackedCli(): Promise<PackedCli> {
  const work = mkdtempSync(join(tmpdir(), "switchyard-package-"));
  const { stdout } = await run("npm", ["pack", "--silent", "--pack-destination", work], { cwd: packageDir });
  const tarball = join(work, stdout.trim().split("\n").at(-1) as string);
  const app = join(work, "app");
  mkdirSync(app);
  await run("npm", ["install", "--offline", "--no-audit", "--no-fund", tarball], { cwd: app });
  return {
    app,
    bin: join(app, "node_modules/.bin/switchyard"),
    remove: () => rmSync(work, { recursive: true, force: true }),
  };
}
