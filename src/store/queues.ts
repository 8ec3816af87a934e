// Queues: one per (repository, target branch), with the settings of contract 4.
import type { Kysely, Selectable } from "kysely";
import type { Database, Flag, QueuesTable } from "./schema.ts";
import { activeSubmissionStates } from "./submissions.ts";

export type QueueState = "running" | "paused" | "draining" | "switching_modes";
export type QueueMode = "single" | "parallel";
export type DirectMergeMode = "off" | "always";
export type OptimizationMode = "off" | "bisection_skip_redundant_tests";
export type MergeMethod = "merge_commit" | "squash" | "rebase";

export interface QueueSettings {
  mode: QueueMode;
  concurrency: number;
  testingTimeoutMinutes: number;
  canOptimisticallyMerge: boolean;
  pendingFailureDepth: number;
  batch: boolean;
  batchingMaxWaitTimeMinutes: number;
  batchingMinSize: number;
  createPrsForTestingBranches: boolean;
  commentsEnabled: boolean;
  commandsEnabled: boolean;
  statusCheckEnabled: boolean;
  /** Null means "equal to concurrency" (contract 4). */
  bisectionConcurrency: number | null;
  /** Null means the queue does not override the repo's required statuses. */
  requiredStatuses: string[] | null;
  directMergeMode: DirectMergeMode;
  optimizationMode: OptimizationMode;
  mergeMethod: MergeMethod;
}

export interface Queue extends QueueSettings {
  id: string;
  repositoryId: string;
  branch: string;
  state: QueueState;
  createdAt: number;
  updatedAt: number;
}

const flag = (value: boolean): Flag => (value ? 1 : 0);

function toRow(settings: Partial<QueueSettings>): Partial<QueuesTable> {
  const row: Partial<QueuesTable> = {};
  const set = <K extends keyof QueuesTable>(key: K, value: QueuesTable[K] | undefined) => {
    if (value !== undefined) row[key] = value;
  };
  const bool = (value: boolean | undefined) => (value === undefined ? undefined : flag(value));
  set("mode", settings.mode);
  set("concurrency", settings.concurrency);
  set("testing_timeout_minutes", settings.testingTimeoutMinutes);
  set("can_optimistically_merge", bool(settings.canOptimisticallyMerge));
  set("pending_failure_depth", settings.pendingFailureDepth);
  set("batch", bool(settings.batch));
  set("batching_max_wait_time_minutes", settings.batchingMaxWaitTimeMinutes);
  set("batching_min_size", settings.batchingMinSize);
  set("create_prs_for_testing_branches", bool(settings.createPrsForTestingBranches));
  set("comments_enabled", bool(settings.commentsEnabled));
  set("commands_enabled", bool(settings.commandsEnabled));
  set("status_check_enabled", bool(settings.statusCheckEnabled));
  set("bisection_concurrency", settings.bisectionConcurrency);
  if (settings.requiredStatuses !== undefined) {
    row.required_statuses =
      settings.requiredStatuses === null ? null : JSON.stringify(settings.requiredStatuses);
  }
  set("direct_merge_mode", settings.directMergeMode);
  set("optimization_mode", settings.optimizationMode);
  set("merge_method", settings.mergeMethod);
  return row;
}

function fromRow(row: Selectable<QueuesTable>): Queue {
  return {
    id: row.id,
    repositoryId: row.repository_id,
    branch: row.branch,
    state: row.state as QueueState,
    mode: row.mode as QueueMode,
    concurrency: row.concurrency,
    testingTimeoutMinutes: row.testing_timeout_minutes,
    canOptimisticallyMerge: row.can_optimistically_merge === 1,
    pendingFailureDepth: row.pending_failure_depth,
    batch: row.batch === 1,
    batchingMaxWaitTimeMinutes: row.batching_max_wait_time_minutes,
    batchingMinSize: row.batching_min_size,
    createPrsForTestingBranches: row.create_prs_for_testing_branches === 1,
    commentsEnabled: row.comments_enabled === 1,
    commandsEnabled: row.commands_enabled === 1,
    statusCheckEnabled: row.status_check_enabled === 1,
    bisectionConcurrency: row.bisection_concurrency,
    requiredStatuses: row.required_statuses === null ? null : (JSON.parse(row.required_statuses) as string[]),
    directMergeMode: row.direct_merge_mode as DirectMergeMode,
    optimizationMode: row.optimization_mode as OptimizationMode,
    mergeMethod: row.merge_method as MergeMethod,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function findQueue(
  db: Kysely<Database>,
  repositoryId: string,
  branch: string,
): Promise<Queue | undefined> {
  const row = await db
    .selectFrom("queues")
    .selectAll()
    .where("repository_id", "=", repositoryId)
    .where("branch_key", "=", branch.toLowerCase())
    .executeTakeFirst();
  return row === undefined ? undefined : fromRow(row);
}

/** Returns undefined when the repository already has a queue for that branch. */
export async function insertQueue(
  db: Kysely<Database>,
  queue: Omit<Queue, "createdAt" | "updatedAt">,
  now: number,
): Promise<Queue | undefined> {
  const inserted = await db
    .insertInto("queues")
    .values({
      ...(toRow(queue) as Omit<QueuesTable, "id" | "repository_id" | "branch" | "branch_key" | "state">),
      id: queue.id,
      repository_id: queue.repositoryId,
      branch: queue.branch,
      branch_key: queue.branch.toLowerCase(),
      state: queue.state,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.columns(["repository_id", "branch_key"]).doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return undefined;
  return { ...queue, createdAt: now, updatedAt: now };
}

export async function updateQueue(
  db: Kysely<Database>,
  id: string,
  changes: Partial<QueueSettings> & { state?: QueueState },
  now: number,
): Promise<void> {
  const row = toRow(changes);
  if (changes.state !== undefined) row.state = changes.state;
  await db
    .updateTable("queues")
    .set({ ...row, updated_at: now })
    .where("id", "=", id)
    .execute();
}

/**
 * Deletes the queue unless it holds a PR in a non-terminal state (contract 4), in one statement so that a
 * submission racing the delete cannot be lost with it. Returns whether it was deleted.
 */
export async function deleteQueueIfEmpty(db: Kysely<Database>, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom("queues")
    .where("id", "=", id)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("pull_request_submissions")
            .select("pull_request_submissions.id")
            .whereRef("pull_request_submissions.queue_id", "=", "queues.id")
            .where("pull_request_submissions.state", "in", activeSubmissionStates),
        ),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
