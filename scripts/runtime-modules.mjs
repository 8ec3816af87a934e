// `node scripts/runtime-modules.mjs <directory>`: copies into <directory>/node_modules the packages the service's
// bundle (scripts/bundle-service.mjs) still loads from node_modules at run time, with their own dependencies, from
// this clone's node_modules as package-lock.json places them; the container image's runtime stage holds these and the
// bundle, nothing else. They are better-sqlite3 (a native module: its compiled addon and its loader only, not its
// sources or its install-time prebuild-install), the PostgreSQL driver and Fastify's two schema compilers, which the
// sources load with createRequire on first use. Probot's setup app is left out: the image refuses to start without
// the GitHub App's credentials (NODE_ENV=production), so it never serves the setup page.
import { cpSync, readFileSync } from "node:fs";
import { join, posix } from "node:path";
import { fileURLToPath, URL } from "node:url";

/** What the bundle loads from node_modules; `files` narrows a package to what runs, `skip` drops install-time deps. */
export const runtimePackages = [
  {
    name: "better-sqlite3",
    files: ["package.json", "LICENSE", "lib", "build/Release/better_sqlite3.node"],
    skip: ["prebuild-install"],
  },
  { name: "pg" },
  { name: "@fastify/ajv-compiler" },
  { name: "@fastify/fast-json-stringify-compiler" },
];

const repository = fileURLToPath(new URL("../", import.meta.url));
const lock = JSON.parse(readFileSync(join(repository, "package-lock.json"), "utf8")).packages;

/** Where Node finds `name` from the package at `from` (a lockfile path, "" for the root): nearest node_modules up. */
function locate(name, from) {
  for (let base = from; ; base = base.replace(/\/?node_modules\/(@[^/]+\/)?[^/]+$/, "")) {
    const candidate = posix.join(base, "node_modules", name);
    if (lock[candidate] !== undefined) return candidate;
    if (base === "") return undefined;
  }
}

/** The lockfile paths of the runtime packages and everything they depend on at run time. */
export function runtimeClosure() {
  const found = new Map();
  const visit = (path, rule = {}) => {
    if (found.has(path)) return;
    found.set(path, rule);
    const entry = lock[path];
    for (const dependency of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) {
      if (rule.skip?.includes(dependency)) continue;
      const location = locate(dependency, path);
      // An optional dependency this platform did not install (pg-cloudflare) is not needed.
      if (location !== undefined) visit(location);
      else if (entry.dependencies?.[dependency] !== undefined) throw new Error(`${path} needs ${dependency}`);
    }
  };
  for (const rule of runtimePackages) visit(`node_modules/${rule.name}`, rule);
  return found;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const target = process.argv[2];
  if (target === undefined) throw new Error("usage: node scripts/runtime-modules.mjs <directory>");
  for (const [path, rule] of runtimeClosure()) {
    const from = join(repository, path);
    // A package's own nested node_modules are copied as the dependencies they are, when they are.
    const filter = (source) => source !== join(from, "node_modules");
    for (const file of rule.files ?? ["."]) {
      cpSync(join(from, file), join(target, path, file), { recursive: true, filter });
    }
  }
}
