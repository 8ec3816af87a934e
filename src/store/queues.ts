// Queues: one per (repository, target branch). The queue core's state is the truth about a queue; this
// table names it and mirrors its settings and state for listings and metrics.
import type { Kysely, Transaction } from "kysely";
import type { QueueSettings } from "../queue/index.ts";
import type { Database, QueuesTable } from "./schema.ts";
import type { QueueRef } from "../ports/queue-records.ts";
export type { QueueRef } from "../ports/queue-records.ts";

type SettingsColumns = Omit<
  QueuesTable,
  "id" | "repository_id" | "branch" | "branch_key" | "created_at" | "updated_at"
>;

/** The columns that mirror a queue's settings and state. */
export function queueColumns(settings: QueueSettings, state: QueuesTable["state"]): SettingsColumns {
  return {
    state,
    mode: settings.mode,
    concurrency: settings.concurrency,
    testing_timeout_minutes: settings.testingTimeoutMinutes,
    can_optimistically_merge: settings.canOptimisticallyMerge ? 1 : 0,
    pending_failure_depth: settings.pendingFailureDepth,
    batch: settings.batch ? 1 : 0,
    batching_max_wait_time_minutes: settings.batchingMaxWaitTimeMinutes,
    batching_min_size: settings.batchingMinSize,
    create_prs_for_testing_branches: settings.createPrsForTestingBranches ? 1 : 0,
    comments_enabled: settings.commentsEnabled ? 1 : 0,
    commands_enabled: settings.commandsEnabled ? 1 : 0,
    status_check_enabled: settings.statusCheckEnabled ? 1 : 0,
    bisection_concurrency: settings.bisectionConcurrency,
    required_statuses: settings.requiredStatuses === null ? null : JSON.stringify(settings.requiredStatuses),
    direct_merge_mode: settings.directMergeMode,
    optimization_mode: settings.optimizationMode,
    merge_method: settings.mergeMethod,
    confirm_failures: settings.confirmFailures ? 1 : 0,
    adaptive_batching: settings.adaptiveBatching ? 1 : 0,
  };
}

export async function findQueue(
  db: Kysely<Database>,
  repositoryId: string,
  branch: string,
): Promise<QueueRef | undefined> {
  return db
    .selectFrom("queues")
    .select(["id", "repository_id as repositoryId", "branch"])
    .where("repository_id", "=", repositoryId)
    .where("branch_key", "=", branch.toLowerCase())
    .executeTakeFirst();
}

/** Returns false when the repository already has a queue for that branch (in any letter case). */
export async function insertQueue(
  trx: Transaction<Database>,
  queue: QueueRef & { settings: QueueSettings },
  now: number,
): Promise<boolean> {
  const inserted = await trx
    .insertInto("queues")
    .values({
      ...queueColumns(queue.settings, "running"),
      id: queue.id,
      repository_id: queue.repositoryId,
      branch: queue.branch,
      branch_key: queue.branch.toLowerCase(),
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.columns(["repository_id", "branch_key"]).doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Deletes the queue and, through foreign keys, everything that belongs to it. */
export async function deleteQueueRow(trx: Transaction<Database>, id: string): Promise<void> {
  await trx.deleteFrom("queues").where("id", "=", id).execute();
}

/** The target branches of the repository's queues. */
export async function queueBranches(db: Kysely<Database>, repositoryId: string): Promise<string[]> {
  const rows = await db
    .selectFrom("queues")
    .select("branch")
    .where("repository_id", "=", repositoryId)
    .execute();
  return rows.map((row) => row.branch);
}
