// The layers of src/ and the one direction their imports take. docs/architecture.md explains them and draws the
// graph from this map (npm run docs:architecture); `npm run lint` and test/architecture/ check the rules below.
/** Innermost first. A folder or file of src/ belongs to exactly one layer. */
export const layers = [
  {
    name: "core",
    summary: "pure rules: no I/O, no clock, nothing of ours outside their own folder",
    folders: ["queue", "test-health"],
  },
  {
    name: "presentation",
    summary: "the queue's and the tests' records as the API, the pages and the stored projections show them",
    folders: ["presentation"],
  },
  {
    name: "ports",
    summary:
      "what the use cases need from the world (GitHub, storage, the clock) and the typed errors they see",
    folders: ["ports"],
  },
  {
    name: "test reports",
    summary:
      "JUnit XML parsing and the thread that reads uploaded reports into test results, in the test-health core's terms",
    folders: ["test-reports"],
  },
  {
    name: "use cases",
    summary: "the queue's commands and runner, test health's upload, listing and triage, the simulator",
    folders: ["queue-commands", "runner", "test-health-use-cases", "simulator"],
  },
  {
    name: "adapters",
    summary: "the database, GitHub, Prometheus, the command line and the HTTP edges (/v1 and the pages)",
    folders: ["store", "github", "metrics", "cli", "http", "api", "web"],
  },
  {
    name: "entry",
    summary: "wires everything together and mounts the edges",
    files: [
      "main.ts",
      "app.ts",
      "edge-ports.ts",
      "setup-server.ts",
      "http-server.ts",
      "operator-endpoints.ts",
    ],
  },
  {
    name: "sandbox",
    summary:
      "a simulated GitHub and CI, and the command that runs the real service against them; nothing imports it",
    folders: ["sandbox"],
  },
  {
    name: "shared leaves",
    summary: "the configuration and the service's own addresses, read by every layer outside the core",
    files: ["config.ts", "urls.ts"],
  },
];

const layer = (name) => layers.find((candidate) => candidate.name === name);
const escaped = (unit) => unit.replaceAll(".", "[.]");
/** The paths of the layers' folders (the folder's name is the match's first group) and files. */
const pathsOf = (...names) => {
  const folders = names.flatMap((name) => layer(name).folders ?? []);
  const files = names.flatMap((name) => layer(name).files ?? []);
  return [
    ...(folders.length > 0 ? [`^src/(${folders.map(escaped).join("|")})/`] : []),
    ...(files.length > 0 ? [`^src/(${files.map(escaped).join("|")})$`] : []),
  ].join("|");
};

const core = pathsOf("core");
const presentation = pathsOf("presentation");
const ports = pathsOf("ports");
const testReports = pathsOf("test reports");
const useCases = pathsOf("use cases");
const entry = pathsOf("entry");

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: "core-is-pure",
      comment: "The queue and test-health cores import nothing of ours outside their own folder.",
      severity: "error",
      from: { path: core },
      to: { path: "^src/", pathNot: "^src/$1/" },
    },
    {
      name: "core-does-no-io",
      comment:
        "The cores use none of Node's own modules but the pure ones: crypto to hash and buffer to hold bytes (a test's id), and to count them (a CODEOWNERS file's size).",
      severity: "error",
      from: { path: core },
      to: { dependencyTypes: ["core"], pathNot: "^(crypto|buffer)$" },
    },
    {
      name: "cores-through-their-index",
      comment:
        "Other folders use the queue and test-health cores through their index.ts, so that a core's files can change without them.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/(queue|test-health)/" },
      to: { path: "^src/(queue|test-health)/", pathNot: "^src/(queue|test-health)/index[.]ts$" },
    },
    {
      name: "presentation-knows-only-the-core",
      comment: "The records are read from the core's state alone.",
      severity: "error",
      from: { path: presentation },
      to: { path: "^src/", pathNot: [presentation, core] },
    },
    {
      name: "test-reports-know-only-the-core",
      comment:
        "Reading reports turns bytes into test results: it needs the core's rules and nothing else of ours.",
      severity: "error",
      from: { path: testReports },
      to: { path: "^src/", pathNot: [testReports, core] },
    },
    {
      name: "ports-know-only-the-core",
      comment:
        "Ports are types and typed errors in the core's terms, and the records the core's state is shown as.",
      severity: "error",
      from: { path: ports },
      to: { path: "^src/", pathNot: [ports, presentation, core] },
    },
    {
      name: "use-cases-import-inwards",
      comment:
        "Use cases import the core, the records, the ports, the test reports and the shared leaves: storage, GitHub and the edges reach them through ports.",
      severity: "error",
      from: { path: useCases },
      to: {
        path: "^src/",
        pathNot: [core, presentation, ports, testReports, useCases, pathsOf("shared leaves")],
      },
    },
    {
      name: "store-imports-inwards",
      comment:
        "The store implements persistence for the use cases: it imports the core, the records and the ports only.",
      severity: "error",
      from: { path: "^src/store/" },
      to: { path: "^src/", pathNot: ["^src/store/", core, presentation, ports] },
    },
    {
      name: "edges-talk-to-ports",
      comment:
        "The /v1 routes, the pages and the GitHub adapters act through the ports the entry point builds (http/dependencies.ts, webhooks/context.ts): never the store or the concrete engine.",
      severity: "error",
      from: { path: "^src/(api|web|github|http)/" },
      to: { path: ["^src/store/", "^src/runner/engine[.]ts$"] },
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
        "GitHub, metrics, the CLI and the shared HTTP edge do not reach into one another (all may use http/).",
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
      name: "nothing-imports-the-sandbox",
      comment: "The service never runs against the simulated GitHub unless the sandbox starts it so.",
      severity: "error",
      from: { path: "^src/", pathNot: pathsOf("sandbox") },
      to: { path: pathsOf("sandbox") },
    },
    {
      name: "shared-leaves-are-leaves",
      comment: "The configuration and the addresses import nothing but each other.",
      severity: "error",
      from: { path: pathsOf("shared leaves") },
      to: { path: "^src/", pathNot: pathsOf("shared leaves") },
    },
    {
      name: "no-cycles",
      comment:
        "A cycle hides which module is the lower one. The simulated GitHub's model (sandbox/fake-github) is one unit whose records and webhook payloads refer to one another, as GitHub's do.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/sandbox/fake-github/" },
      to: { circular: true },
    },
  ],
  options: {
    // Our modules, and Node's own (bare names such as `crypto` or `fs/promises`) so that core-does-no-io sees them.
    includeOnly: "^src/|^[a-z_/]+$",
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    doNotFollow: { path: "node_modules" },
  },
};
