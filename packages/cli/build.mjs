// Bundles the client commands (src/cli/client-main.ts) with their few dependencies into dist/switchyard.js: one
// file with no runtime dependencies, so that installing the package needs no registry. Run by `npm pack` (prepack)
// and by `npm run build:cli` at the repository's root.
import { chmod, mkdir, rename, writeFile } from "node:fs/promises";
import { fileURLToPath, URL } from "node:url";
import { build } from "esbuild";

const outfile = fileURLToPath(new URL("dist/switchyard.js", import.meta.url));
const { outputFiles } = await build({
  entryPoints: [fileURLToPath(new URL("../../src/cli/client-main.ts", import.meta.url))],
  outfile,
  write: false,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // The bundled CommonJS dependencies (commander, fast-glob) call require() for Node's own modules.
  banner: {
    js: '#!/usr/bin/env node\nimport { createRequire } from "node:module";\nconst require = createRequire(import.meta.url);',
  },
  logLevel: "warning",
});
// Written aside and renamed into place, so that a pack running at the same time never reads half a file.
const temporary = `${outfile}.${process.pid}`;
await mkdir(fileURLToPath(new URL("dist/", import.meta.url)), { recursive: true });
await writeFile(temporary, outputFiles[0].contents);
await chmod(temporary, 0o755);
await rename(temporary, outfile);
