// Bundles the GitHub Action's entry (src/cli/action-main.ts) into action/dist/index.mjs, which is committed: the
// runner runs it as it is, with nothing installed. `npm run build:action`; an argument names another directory to
// write to (test/action/dist.test.ts rebuilds into one of its own and compares).
import { join } from "node:path";
import { fileURLToPath, URL } from "node:url";
import { bundleClient } from "./bundle-client.mjs";

const outdir = process.argv[2] ?? fileURLToPath(new URL("../action/dist/", import.meta.url));
await bundleClient({ entry: "action-main.ts", outfile: join(outdir, "index.mjs") });
