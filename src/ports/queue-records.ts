// What the /v1 routes and the queue pages read of the queues besides their state: which queue a request names,
// the version of its saved state, its submissions and runs as recorded, and its recent past. src/store/
// implements these reads.
import type { PullRequestView } from "../presentation/queue-views.ts";
import type { QueueState } from "../queue/index.ts";
import type { RepositoryRef } from "./github-reads.ts";
import type { Repository } from "./test-case-storage.ts";

export interface QueueRef {
  id: string;
  repositoryId: string;
  branch: string;
}

export interface VersionedQueueRef extends QueueRef {
  /** The version of the queue's last saved state. */
  version: number;
}

/** A queue's state as saved at `version`. */
export interface QueueSnapshot {
  queueId: string;
  version: number;
  /** Shared between requests and steps: the core never mutates a state, and neither may a reader. */
  state: QueueState;
}

export interface RepositoryQueue {
  id: string;
  branch: string;
}

export interface SubmissionPage {
  records: PullRequestView[];
  /** The last row of a full page: where the next page starts. */
  last: { submittedAt: number; id: string } | null;
}

export interface SubmissionFilter {
  state?: string | undefined;
  since?: number | undefined;
  after?: { submittedAt: number; id: string } | undefined;
  take: number;
}

export interface DepartedPullRequest {
  prNumber: number;
  title: string;
  author: string;
  state: "merged" | "failed" | "cancelled";
  stateReason: string;
  stateDetail: string;
  leftAt: number;
  submittedAt: number;
  /** The run that tested it last: for a failed PR, the run that proved it. */
  testRunId: string | null;
}

/** What happened to a queue after `since`: its charts of the last day are drawn from it. */
export interface QueueActivity {
  /** When each PR merged, and how long after its submission. */
  merges: { at: number; durationMs: number }[];
  /** When each submission entered the queue. */
  entered: number[];
  /** When each PR left it (merged, failed, cancelled). */
  left: number[];
  /** When each test run ended. */
  runsEnded: number[];
}

/** A count per queue and key (a state, a reason). */
export interface CountRow {
  queueId: string;
  key: string;
  count: number;
}

export interface QueueRecords {
  /** The repository's queue for a branch (in any letter case). */
  findQueue(repositoryId: string, branch: string): Promise<QueueRef | undefined>;
  /** The same, with the version of its saved state. */
  findQueueVersion(repositoryId: string, branch: string): Promise<VersionedQueueRef | undefined>;
  /** In one read: the installed repository `ref` names and its queue for `branch`; what most requests read. */
  findInstalledRepositoryQueue(
    ref: RepositoryRef,
    branch: string,
  ): Promise<{ repository: Repository; queue: VersionedQueueRef } | undefined>;
  /** The queue's state as saved at `version`, which the caller just read, or at a later one saved since. */
  queueSnapshot(queueId: string, version: number): Promise<QueueSnapshot | undefined>;
  /** The version of the queue's saved state: it changes with every step. */
  queueStateVersion(queueId: string): Promise<number | undefined>;
  /** The repository's queues, by branch. */
  repositoryQueues(repositoryId: string): Promise<RepositoryQueue[]>;
  /** The PR record of a PR's latest submission, also after the queue's state let go of it. */
  latestSubmissionRecord(queueId: string, prNumber: number): Promise<PullRequestView | undefined>;
  /** Every submission, newest first, a page at a time. */
  listSubmissions(queueId: string, filter: SubmissionFilter): Promise<SubmissionPage>;
  /** The test run record as of the run's last change, for runs the queue state no longer holds. */
  findTestRunRecord(queueId: string, runId: string): Promise<unknown>;
  /** PRs that reached a final state after `since`, latest first, at most `limit`. */
  departedPullRequests(queueId: string, since: number, limit: number): Promise<DepartedPullRequest[]>;
  queueActivity(queueId: string, since: number): Promise<QueueActivity>;
  /** Submission to merge of each PR merged after `since`, shortest first. */
  mergeDurations(queueId: string, since: number): Promise<number[]>;
  /** Transitions into `states` after `since`, per queue and state. */
  transitionsByState(
    queueIds: readonly string[],
    states: readonly string[],
    since: number,
  ): Promise<CountRow[]>;
}
