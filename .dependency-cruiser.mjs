// The layers of src/ and the one direction their imports take (docs/architecture.md draws them). Innermost first:
//   core        src/queue/, src/health/             pure rules: no I/O, no clock, nothing of ours outside itself
//   ports       src/ports/                          what the use cases need from the world, and its typed errors
//   use cases   src/runner/, src/health-use-cases/, src/simulator/
//   adapters    src/store/, src/github/, src/metrics/, src/cli/, src/http/ (what the HTTP edges share),
//               src/api/ (the /v1 routes), src/web/ (the server-rendered pages)
//   entry       src/main.ts, src/app.ts, src/setup-server.ts, src/http-server.ts, src/operator-endpoints.ts:
//               wire everything together
// src/config.ts and src/urls.ts are leaves every layer outside the core may read.
const core = "^src/(queue|health)/";
const ports = "^src/ports/";
const useCases = "^src/(runner|health-use-cases|simulator)/";
const store = "^src/store/";
const drivingAdapters = "^src/(github|metrics|cli|http|api|web)/";
const entry = "^src/(main|app|setup-server|http-server|operator-endpoints)[.]ts$";

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: "core-is-pure",
      comment: "The queue and test-health cores import nothing of ours outside their own folder.",
      severity: "error",
      from: { path: "^src/(queue|health)/" },
      to: { path: "^src/", pathNot: "^src/$1/" },
    },
    {
      name: "ports-know-only-the-core",
      comment: "Ports are types and typed errors in the core's terms.",
      severity: "error",
      from: { path: ports },
      to: { path: "^src/", pathNot: [ports, core] },
    },
    {
      name: "use-cases-import-inwards",
      comment: "Use cases import the core, the ports and the store, never an edge or the entry.",
      severity: "error",
      from: { path: useCases },
      to: { path: [drivingAdapters, entry] },
    },
    {
      name: "store-imports-inwards",
      comment: "The store implements persistence for the use cases: it imports the core and the ports only.",
      severity: "error",
      from: { path: store },
      to: { path: "^src/", pathNot: [store, core, ports] },
    },
    {
      name: "only-the-entry-imports-api",
      comment: "The /v1 routes are mounted by the entry point; nothing else reaches into them.",
      severity: "error",
      from: { path: "^src/", pathNot: ["^src/api/", entry] },
      to: { path: "^src/api/" },
    },
    {
      name: "only-the-entry-imports-web",
      comment: "The pages are mounted by the entry point; nothing else reaches into them.",
      severity: "error",
      from: { path: "^src/", pathNot: ["^src/web/", entry] },
      to: { path: "^src/web/" },
    },
    {
      name: "adapters-stay-apart",
      comment:
        "GitHub, metrics, the CLI and the shared HTTP edge do not reach into one another (all may use src/http/).",
      severity: "error",
      from: { path: "^src/(github|metrics|cli|http)/" },
      to: { path: "^src/(github|metrics|cli)/", pathNot: "^src/$1/" },
    },
    {
      name: "nothing-imports-the-entry",
      severity: "error",
      from: { path: "^src/", pathNot: entry },
      to: { path: entry },
    },
    {
      name: "no-cycles",
      comment: "A cycle hides which module is the lower one.",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true },
    },
  ],
  options: {
    includeOnly: "^src/",
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    doNotFollow: { path: "node_modules" },
  },
};
