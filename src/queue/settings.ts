export type QueueMode = "single" | "parallel";
export type MergeMethod = "merge_commit" | "squash" | "rebase";
export type DirectMergeMode = "off" | "always";
/**
 * `separate_proof` and `auto` (ours) plan runs apart from the FIFO chain: each run is the target, the PRs already
 * proven good and one group of unproven PRs (see proof-planner.ts); `auto` also sizes the groups and chooses
 * speculation from the rates the queue observes, and ignores the batching knobs.
 */
export type OptimizationMode = "off" | "bisection_skip_redundant_tests" | "separate_proof" | "auto";

/** The settings of one queue (docs/queue.md#settings); validation of ranges is the API's job. */
export interface QueueSettings {
  readonly mode: QueueMode;
  /** Main-line runs in flight at once; in parallel mode over all lanes together (docs/queue.md#what-concurrency-bounds, #batching-and-bisection-in-lanes). */
  readonly concurrency: number;
  readonly testingTimeoutMinutes: number;
  readonly canOptimisticallyMerge: boolean;
  readonly pendingFailureDepth: number;
  readonly batch: boolean;
  readonly batchingMaxWaitTimeMinutes: number;
  readonly batchingMinSize: number;
  readonly createPrsForTestingBranches: boolean;
  readonly commentsEnabled: boolean;
  readonly commandsEnabled: boolean;
  readonly statusCheckEnabled: boolean;
  /** null: follows `concurrency` until set (docs/queue.md#settings). */
  readonly bisectionConcurrency: number | null;
  /** The queue's own override (`merge_instance`); null: resolved from the repo per run (docs/queue.md#required-statuses). */
  readonly requiredStatuses: readonly string[] | null;
  readonly directMergeMode: DirectMergeMode;
  readonly optimizationMode: OptimizationMode;
  readonly mergeMethod: MergeMethod;
  /**
   * Extension (flake evidence): a PR whose tests failed is tested once more, alone on the same base, and fails
   * only if that run fails too; a pass means the first failure was a flake.
   */
  readonly confirmFailures: boolean;
  /**
   * Extension: the size of the batches follows the failure rate seen over the last hours, at most
   * `batchingMinSize` (see batching.ts).
   */
  readonly adaptiveBatching: boolean;
}

/**
 * Whether the proof planner plans this queue's runs. Parallel mode keeps its lanes' FIFO chains: the planner
 * tests one target.
 */
export function usesProofPlanner(settings: QueueSettings): boolean {
  return (
    settings.mode === "single" &&
    (settings.optimizationMode === "separate_proof" || settings.optimizationMode === "auto")
  );
}

/** The queue's own required statuses (`merge_instance`, docs/queue.md#required-statuses); null: the repo's apply. */
export function ownRequiredStatuses(settings: QueueSettings): readonly string[] | null {
  const own = settings.requiredStatuses;
  return own !== null && own.length > 0 ? own : null;
}

export const DEFAULT_QUEUE_SETTINGS: QueueSettings = {
  mode: "single",
  concurrency: 1,
  testingTimeoutMinutes: 300,
  canOptimisticallyMerge: false,
  pendingFailureDepth: 0,
  batch: false,
  batchingMaxWaitTimeMinutes: 5,
  batchingMinSize: 4,
  createPrsForTestingBranches: false,
  commentsEnabled: true,
  commandsEnabled: true,
  statusCheckEnabled: true,
  bisectionConcurrency: null,
  requiredStatuses: null,
  directMergeMode: "off",
  optimizationMode: "off",
  mergeMethod: "squash",
  confirmFailures: false,
  adaptiveBatching: false,
};
