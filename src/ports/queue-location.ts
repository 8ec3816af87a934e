// The address of a queue that every port call about it carries.

/** Where a queue lives on GitHub: what every command and webhook needs to address it. */
export interface QueueLocation {
  queueId: string;
  repositoryId: string;
  host: string;
  owner: string;
  name: string;
  installationId: number | null;
  targetBranch: string;
}

/**
 * Whom CI results on a commit concern: the queues with a run testing it, and the queued PRs whose head it is (the
 * results count for their odds, and may make the not-ready ones mergeable).
 */
export interface CommitConcerns {
  testing: string[];
  notReady: { queueId: string; prNumber: number }[];
  /** Every queued PR whose head it is, not-ready ones too. */
  queued: { queueId: string; prNumber: number }[];
}

/** Where the webhooks find the queues a delivery is about. src/store/queue-locations.ts implements it. */
export interface QueueDirectory {
  queueLocation(queueId: string): Promise<QueueLocation | undefined>;
  /** The queue of a repository's branch (names compare case-insensitively). */
  findQueueLocation(
    repo: { host: string; owner: string; name: string },
    branch: string,
  ): Promise<QueueLocation | undefined>;
  /** The branches of the repository's queues. */
  queueBranches(repositoryId: string): Promise<string[]>;
  /** Whom CI results on the commit concern; reads asked together go in one. */
  commitConcerns(sha: string): Promise<CommitConcerns>;
  /** The repository's queues with a run whose test branch commit is `sha`. */
  queuesWithRunAt(repositoryId: string, sha: string): Promise<string[]>;
}
