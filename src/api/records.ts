// Domain objects → wire records (interface document 2.2, 2.3; contract 1: ISO times, lowercase enums).
import type { Queue } from "../store/queues.ts";
import type { Submission } from "../store/submissions.ts";

export const defaultPriority = { name: "medium", value: 100 } as const;
const priorityNames = new Map<number, string>([
  [0, "urgent"],
  [10, "high"],
  [100, "medium"],
  [200, "low"],
]);

/** contract 5.2: the name of the value when it has one, else the number as a string. */
export function priorityName(value: number): string {
  return priorityNames.get(value) ?? String(value);
}

export const isoTime = (epochMs: number): string => new Date(epochMs).toISOString();

export function enqueuedPullRequestRecord(submission: Submission) {
  return {
    id: submission.id,
    state: submission.state,
    stateChangedAt: isoTime(submission.stateChangedAt),
    priorityValue: submission.priorityValue,
    priorityName: priorityName(submission.priorityValue),
    skipTheLine: submission.skipTheLine,
    noBatch: submission.noBatch,
    prNumber: submission.prNumber,
    prTitle: submission.prTitle,
    prSha: submission.prSha,
    prBaseBranch: submission.prBaseBranch,
    prAuthor: submission.prAuthor,
    ...(submission.usedDefaultPriority ? { usedDefaultPriorityName: defaultPriority.name } : {}),
  };
}

export function queueRecord(queue: Queue, enqueued: Submission[]) {
  return {
    state: queue.state,
    branch: queue.branch,
    concurrency: queue.concurrency,
    testingTimeoutMinutes: queue.testingTimeoutMinutes,
    mode: queue.mode,
    canOptimisticallyMerge: queue.canOptimisticallyMerge,
    pendingFailureDepth: queue.pendingFailureDepth,
    batch: queue.batch,
    batchingMaxWaitTimeMinutes: queue.batchingMaxWaitTimeMinutes,
    batchingMinSize: queue.batchingMinSize,
    createPrsForTestingBranches: queue.createPrsForTestingBranches,
    commentsEnabled: queue.commentsEnabled,
    commandsEnabled: queue.commandsEnabled,
    statusCheckEnabled: queue.statusCheckEnabled,
    // contract 4: equal to concurrency until set.
    bisectionConcurrency: queue.bisectionConcurrency ?? queue.concurrency,
    requiredStatuses: queue.requiredStatuses,
    directMergeMode: queue.directMergeMode,
    optimizationMode: queue.optimizationMode,
    mergeMethod: queue.mergeMethod,
    enqueuedPullRequests: enqueued.map(enqueuedPullRequestRecord),
  };
}
