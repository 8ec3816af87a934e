// What the HTTP edges (the /v1 routes and the pages) are given by the entry point: the configuration, and the
// ports they act through, each as narrow as what the edges do with it. None is the store or the engine itself.
import type { Logger } from "probot";
import type { Config } from "../config.ts";
import type { RepositoryFacts } from "../test-health-use-cases/checkout-facts.ts";
import type { ApiTokens } from "../ports/api-tokens.ts";
import type { Clock } from "../ports/clock.ts";
import type { GitHubReader, InstallationDirectory } from "../ports/github-reads.ts";
import type { ImpactedTargetStorage } from "../ports/impacted-target-storage.ts";
import type { QueueEngine } from "../ports/queue-engine.ts";
import type { QueueDirectory } from "../ports/queue-location.ts";
import type { QueueRecords } from "../ports/queue-records.ts";
import type { RepositoryRecords } from "../ports/repository-records.ts";
import type { TestHealthStorage } from "../ports/test-health-persistence.ts";
import type { TestListingReads } from "../ports/test-listing-reads.ts";
import type { TestPageReads } from "../ports/test-page-reads.ts";
import type { SubmissionReads } from "../queue-commands/submission.ts";

export interface EdgeDependencies {
  config: Config;
  log: Logger;
  clock: Clock;
  /** Which installation of the GitHub App serves a repository. */
  installations: InstallationDirectory;
  github: GitHubReader;
  /** Read a queue's state, step events into it, create and delete queues. */
  queues: QueueEngine;
  /** Which queue a request names, and what the queue recorded. */
  queueRecords: QueueRecords;
  /** The queues of a repository with a run at a commit (flake evidence from an upload). */
  queueDirectory: Pick<QueueDirectory, "queuesWithRunAt">;
  /** What a submission reads besides the queue. */
  submissionReads: SubmissionReads;
  impactedTargets: ImpactedTargetStorage;
  repositories: RepositoryRecords;
  tokens: ApiTokens;
  /** Test health's tests, results and settings. */
  testHealth: TestHealthStorage;
  testListings: TestListingReads;
  testPages: TestPageReads;
  /** Default branch and CODEOWNERS, for test health (docs/test-health.md#uploading-results-from-ci), as the uploads told them. */
  repositoryFacts: RepositoryFacts;
  /** The service's own secret browser sessions are signed with, made once and kept. */
  browserSessionSecret(): Promise<Buffer>;
  /** The queues' metrics in Prometheus' text exposition format. */
  queueMetrics(
    scope: { organizationId: string; repositoryId: string | undefined },
    now: number,
  ): Promise<string>;
}

/** What test health's use cases are given by an edge. */
export const testHealthDependencies = (deps: EdgeDependencies) => ({
  config: deps.config,
  store: deps.testHealth,
  repositoryFacts: deps.repositoryFacts,
  clock: deps.clock,
});
