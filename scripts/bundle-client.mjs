// Bundles an entry of the client commands (src/cli/client-main.ts: the installable `switchyard`; src/cli/action-main.ts:
// the GitHub Action) with its few dependencies into one file that needs nothing installed beside it. The build is
// deterministic: the same sources and esbuild give the same bytes wherever the clone is (the bundle's comments name
// files relative to the repository), so a test can rebuild the committed action/dist/ and compare.
import { chmod, mkdir, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { fileURLToPath, URL } from "node:url";
import { build } from "esbuild";

const repository = fileURLToPath(new URL("../", import.meta.url));

/** Bundles src/cli/<entry> into `outfile`; an executable gets a #! line and the executable bits. */
export async function bundleClient({ entry, outfile, executable = false }) {
  const { outputFiles } = await build({
    entryPoints: [`src/cli/${entry}`],
    absWorkingDir: repository,
    outfile,
    write: false,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // The bundled CommonJS dependencies (commander, fast-glob) call require() for Node's own modules.
    banner: {
      js: `${executable ? "#!/usr/bin/env node\n" : ""}import { createRequire } from "node:module";\nconst require = createRequire(import.meta.url);`,
    },
    logLevel: "warning",
  });
  // Written aside and renamed into place, so that a pack or a test running at the same time never reads half a file.
  const temporary = `${outfile}.${process.pid}`;
  await mkdir(dirname(outfile), { recursive: true });
  await writeFile(temporary, outputFiles[0].contents);
  if (executable) await chmod(temporary, 0o755);
  await rename(temporary, outfile);
}
