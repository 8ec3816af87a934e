// The Probot app: wires webhooks to the domain, runs the merge queue engine, mounts the /v1 API.
import type { ApplicationFunction } from "probot";
import { operatorEndpoints } from "./operator-endpoints.ts";
import { apiHandler, buildApi } from "./http-server.ts";
import type { Config } from "./config.ts";
import { GitHubCommandExecutor } from "./github/github-commands.ts";
import { GitHubGateway } from "./github/gateway.ts";
import { githubInstallations, registerInstallationWebhooks } from "./github/installations.ts";
import { registerQueueWebhooks } from "./github/webhooks/webhook-handlers.ts";
import { scheduleTestHealthMaintenance } from "./test-health-use-cases/maintenance.ts";
import { storedRepositoryFacts } from "./test-health-use-cases/checkout-facts.ts";
import { MergeQueueEngine } from "./runner/engine.ts";
import {
  deliveryClaimsOn,
  httpEdgePorts,
  impactedTargetsOn,
  queueDirectoryOn,
  repositoryRecordsOn,
  statusCommentsOn,
} from "./edge-ports.ts";
import type { Store } from "./store/database.ts";
import { pullRequestUrl, queuePageUrl } from "./urls.ts";
import packageJson from "../package.json" with { type: "json" };
import type { Clock } from "./ports/clock.ts";

export interface AppDependencies {
  config: Config;
  store: Store;
  clock?: Clock;
  /** Receives the engine once built (the process entry stops it; tests drive it). */
  onEngine?: (engine: MergeQueueEngine) => void;
  /** Start the background timers (tests step the scheduler themselves). */
  startScheduler?: boolean;
  /**
   * Where the app's HTTP handlers (/v1, the pages, the operator endpoints) go: the process entry serves them
   * itself, ahead of Probot's middleware, which would await each of its handlers in turn on every request.
   * Probot's `addHandler` when absent.
   */
  serveHandler?: AddHandler;
}

export function switchyardApp({
  config,
  store,
  clock = Date.now,
  onEngine,
  startScheduler = true,
  serveHandler,
}: AppDependencies): ApplicationFunction {
  return async (app, { addHandler: probotHandler }) => {
    const addHandler = serveHandler ?? probotHandler;
    const { engine, github, repositoryFacts, submissionReads } = await mountService(app, addHandler, {
      config,
      store,
      clock,
      githubAppRegistered: true,
    });
    onEngine?.(engine);
    registerInstallationWebhooks(app, repositoryRecordsOn(store), config.githubHost, clock);
    registerQueueWebhooks(app, {
      queues: engine,
      queueDirectory: queueDirectoryOn(store),
      repositories: repositoryRecordsOn(store),
      deliveries: deliveryClaimsOn(store),
      submissionReads,
      github,
      githubHost: config.githubHost,
      log: app.log,
      clock,
      previousWebhookSecret: config.webhookSecretPrevious,
    });
    // prom-client (with the tracing API it loads) is loaded only when the operator metrics are on.
    const processMetrics = config.operatorMetrics
      ? (await import("./metrics/process-metrics.ts")).processMetricsRegistry()
      : null;
    // Probot runs the app only once it has the app's credentials.
    addHandler?.(operatorEndpoints({ store, log: app.log, processMetrics, githubAppRegistered: true }));
    if (startScheduler) engine.start();
    if (startScheduler) {
      const retentionDays = config.testResultsRetentionDays;
      scheduleTestHealthMaintenance({ store, facts: repositoryFacts, retentionDays, clock, log: app.log });
    }
  };
}

type AddHandler = Parameters<ApplicationFunction>[1]["addHandler"];

/**
 * The engine and the HTTP edges (/v1, the pages) on `app`'s GitHub. Before the GitHub App is registered (setup
 * mode) the same edges are mounted: what needs no app (test health, the pages, the OpenAPI document) works, and
 * the queue's endpoints say how to register the app.
 */
export async function mountService(
  app: Parameters<ApplicationFunction>[0],
  addHandler: AddHandler,
  options: { config: Config; store: Store; clock: Clock; githubAppRegistered: boolean },
) {
  const { config, store, clock } = options;
  const github = new GitHubGateway(app);
  const engine = new MergeQueueEngine({
    store,
    clock,
    log: app.log,
    executor: new GitHubCommandExecutor(github, statusCommentsOn(store), (location, prNumber) =>
      queuePageUrl(config, location, prNumber),
    ),
    github,
    prUrl: (location, prNumber) => pullRequestUrl(config, location, prNumber),
    testBranchPrefix: config.testBranchPrefix,
    // A tick a second: mergeability GitHub is computing is read again after 1 s, 2 s, 4 s…
    schedule: { tickIntervalMs: 1_000, pollIntervalMs: config.pollIntervalSeconds * 1000 },
  });
  const repositoryFacts = storedRepositoryFacts(store);
  const submissionReads = {
    branchHead: github.branchHead.bind(github),
    ciReports: github.ciReports.bind(github),
    impactedTargets: impactedTargetsOn(store),
  };
  const api = await buildApi(
    {
      ...httpEdgePorts(store),
      config,
      installations: githubInstallations(app),
      github,
      queues: engine,
      submissionReads,
      repositoryFacts,
      log: app.log,
      clock,
    },
    packageJson.version,
    { githubAppRegistered: options.githubAppRegistered },
  );
  addHandler?.(apiHandler(api));
  return { engine, github, repositoryFacts, submissionReads };
}
