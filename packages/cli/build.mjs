// Bundles the client commands (src/cli/client-main.ts) with their few dependencies into dist/switchyard.js: one
// file with no runtime dependencies, so that installing the package needs no registry. Run by `npm pack` (prepack),
// by `npm run build:cli` at the repository's root and by `npm run release`.
import { fileURLToPath, URL } from "node:url";
import { bundleClient } from "../../scripts/bundle-client.mjs";

await bundleClient({
  entry: "client-main.ts",
  outfile: fileURLToPath(new URL("dist/switchyard.js", import.meta.url)),
  executable: true,
});
