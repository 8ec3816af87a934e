// Where test health meets the merge queue (docs/flake-evidence.md): a JUnit upload on a commit that one of the
// repository's queues tested on a test branch tells that queue which tests failed there and what test health
// knows of them. Test health's core knows nothing of queues; this use case carries the news across.
import type { QueueEvent } from "../queue/index.ts";
import type { FailingTestHealth } from "./upload-outcome.ts";

export interface RunEvidencePorts {
  /** The repository's queues with a run whose test branch commit is `sha`. */
  queuesWithRunAt(repositoryId: string, sha: string): Promise<readonly string[]>;
  /** Steps a queue with events, through its runner. */
  dispatch(queueId: string, events: readonly QueueEvent[]): Promise<unknown>;
}

/** Tells the queues that tested `commitSha` what its upload's failing tests were, and their health. */
export async function reportRunEvidence(
  ports: RunEvidencePorts,
  repositoryId: string,
  commitSha: string,
  failingTests: readonly FailingTestHealth[],
): Promise<void> {
  const queueIds = await ports.queuesWithRunAt(repositoryId, commitSha);
  for (const queueId of queueIds) {
    await ports.dispatch(queueId, [{ type: "run_failures_explained", sha: commitSha, failingTests }]);
  }
}
