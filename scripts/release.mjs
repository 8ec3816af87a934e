// `npm run release [-- <directory>]`: builds what a release of Switchyard ships besides its source, for the
// maintainer to attach to a GitHub release and tag (docs/releasing.md):
// - the installable client's tarball, switchyard-ci-cli-<version>.tgz, into the directory (release/ by default):
//   one bundled file with no dependencies, which `npm install --global <tarball or its URL>` installs offline;
// - the GitHub Action's bundle, action/dist/index.mjs, which the tag must hold (the runner runs it as committed).
// It refuses versions that disagree, and says when the Action's bundle changed and must be committed before tagging.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath, URL } from "node:url";
import { promisify } from "node:util";
import { bundleClient } from "./bundle-client.mjs";

const run = promisify(execFile);
const repository = fileURLToPath(new URL("../", import.meta.url));
const outdir = resolve(process.argv[2] ?? join(repository, "release"));
const version = (path) => JSON.parse(readFileSync(join(repository, path), "utf8")).version;

const service = version("package.json");
const client = version("packages/cli/package.json");
if (service !== client) {
  console.error(
    `package.json is ${service} but packages/cli/package.json is ${client}: give both the release's`,
  );
  process.exit(1);
}

await bundleClient({ entry: "action-main.ts", outfile: join(repository, "action/dist/index.mjs") });
mkdirSync(outdir, { recursive: true });
const { stdout } = await run("npm", ["pack", "--silent", "--pack-destination", outdir], {
  cwd: join(repository, "packages/cli"),
});
const tarball = join(outdir, stdout.trim().split("\n").at(-1));
const sha256 = createHash("sha256").update(readFileSync(tarball)).digest("hex");

console.log(`Switchyard ${service}`);
const shown = relative(process.cwd(), tarball).startsWith("..") ? tarball : relative(process.cwd(), tarball);
console.log(`  client:  ${shown} (sha256 ${sha256})`);
console.log(`  action:  action/dist/index.mjs`);
const { stdout: changed } = await run("git", ["status", "--porcelain", "--", "action/dist"], {
  cwd: repository,
});
if (changed.trim() !== "") {
  console.error("action/dist/ changed: commit it, then tag the commit that holds it");
  process.exitCode = 1;
} else {
  const major = `v${service.split(".")[0]}`;
  console.log("Then tag the commit, move the major tag, and attach the tarball to the release:");
  console.log(
    `  git tag v${service} && git tag --force ${major} && git push origin v${service} && git push --force origin ${major}`,
  );
}
