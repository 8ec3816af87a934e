// What a repository's queues page shows, as repository-queues-page.ts reads it and repository-queues-html.ts
// writes it.

export interface QueueSummary {
  branch: string;
  /** Below the service's root. */
  path: string;
  state: string;
  mode: string;
  depth: number;
  runsInFlight: number;
  mergedLastHour: number;
  failedLastHour: number;
  /** Submission to merge of today's (UTC) merges; null when nothing merged today. */
  timeToMergeP50: number | null;
  timeToMergeP95: number | null;
}

export interface RepositoryQueuesView {
  repositoryName: string;
  repositoryUrl: string;
  /** The repository's test health page, below the service's root. */
  testsPath: string;
  queues: QueueSummary[];
}
