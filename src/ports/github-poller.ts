// What the runner reads from GitHub to follow the queues: CI reports, pull requests, test branches and required
// statuses. src/github/ implements it.
import type { PullRequestFacts, RequiredStatusesSource, StatusReport } from "../queue/index.ts";
import type { QueueLocation } from "./queue-location.ts";

/** What the scheduler reads from GitHub. */
export interface GitHubPoller {
  ciReports(location: QueueLocation, sha: string): Promise<StatusReport[]>;
  pullRequest(location: QueueLocation, number: number): Promise<PullRequestFacts | null>;
  /** The head of a test branch that holds every one of `commits`, else null. */
  builtBranchHead(
    location: QueueLocation,
    branch: string,
    commits: readonly string[],
  ): Promise<string | null>;
  requiredStatuses(
    location: QueueLocation,
    targetBranch: string,
  ): Promise<{ statuses: string[]; source: RequiredStatusesSource }>;
}
