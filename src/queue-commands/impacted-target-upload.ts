// The build/test targets a PR's head commit impacts (parallel queues), as CI uploads them through /v1
// setImpactedTargets: kept for the submission of that head, and told at once to a queue that holds the PR.
import type { QueueEvent, QueueState } from "../queue/index.ts";
import type { ImpactedTargetStorage, Targets } from "../ports/impacted-target-storage.ts";

export interface ImpactedTargetsUpload {
  readonly queue: { readonly id: string; readonly state: QueueState };
  readonly prNumber: number;
  readonly headSha: string;
  readonly targets: Targets;
}

/** Never refused: targets may come before the PR is submitted, or for a head the PR no longer has. */
export async function setImpactedTargets(
  storage: Pick<ImpactedTargetStorage, "saveImpactedTargets">,
  upload: ImpactedTargetsUpload,
  now: number,
): Promise<{ events: readonly QueueEvent[] }> {
  const { queue, prNumber, headSha, targets } = upload;
  await storage.saveImpactedTargets({ queueId: queue.id, prNumber, headSha, targets }, now);
  if (queue.state.prs[prNumber] === undefined) return { events: [] };
  return { events: [{ type: "impacted_targets_set", prNumber, headSha, targets }] };
}
