// The last step of `npm run build`: bundles the service's entry (src/main.ts) with its dependencies into
// dist/src/main.js, and the command line tool's (src/cli/main.ts) into dist/src/cli/main.js, over the files tsc
// wrote there. Loaded file by file, the service's modules and theirs (some 1,300 files) took most of its start-up and
// about 25 MiB of its memory at idle; one file parses in a fraction of that. The container image holds these bundles
// and none of the rest of dist/. An argument names another directory to write to (test/main.test.ts starts the
// bundle from one of its own).
//
// Left to be loaded from node_modules at run time: better-sqlite3 (a native module), and what the sources load
// with createRequire or import.meta.resolve themselves (the pg driver, the route compilers, Probot's setup app),
// which only some processes use; scripts/runtime-modules.mjs copies them (but the setup app) for the image.
import { fileURLToPath, URL } from "node:url";
import { build } from "esbuild";

const path = (relative) => fileURLToPath(new URL(relative, import.meta.url));

await build({
  entryPoints: {
    main: path("../src/main.ts"),
    "cli/main": path("../src/cli/main.ts"),
  },
  outdir: process.argv[2] ?? path("../dist/src"),
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  external: ["better-sqlite3"],
  // Without the comments and indentation the source V8 keeps is a third of the size (and all Latin-1, so one byte a
  // character). Names are kept: a stack trace still names its functions (main.js.map places them in src/).
  sourcemap: true,
  minifyWhitespace: true,
  // The bundled CommonJS dependencies call require() for Node's own modules.
  banner: {
    js: 'import { createRequire as createBundleRequire } from "node:module";\nconst require = createBundleRequire(import.meta.url);',
  },
  logLevel: "warning",
});
