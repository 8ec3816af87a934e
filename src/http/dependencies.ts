// What the HTTP edges (the /v1 routes and the pages) are given by the entry point.
import type { Logger } from "probot";
import type { Config } from "../config.ts";
import type { RepositoryFacts } from "../test-health-use-cases/checkout-facts.ts";
import type { MergeQueueEngine } from "../runner/engine.ts";
import type { Store } from "../store/database.ts";
import type { Clock } from "../ports/clock.ts";
import type { GitHubReader, InstallationDirectory } from "../ports/github-reads.ts";

export interface ApiDependencies {
  config: Config;
  store: Store;
  installations: InstallationDirectory;
  github: GitHubReader;
  engine: MergeQueueEngine;
  /** Default branch and CODEOWNERS, for test health (docs/test-health.md#uploading-results-from-ci), as the uploads told them. */
  repositoryFacts: RepositoryFacts;
  log: Logger;
  clock: Clock;
}
