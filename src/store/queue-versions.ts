// The saved version of a queue's state: a cheap read (no state document) that tells a reader whether the state it
// parsed before is still the latest, on every replica, since each saved step increments it.
import type { Kysely } from "kysely";
import type { QueueRef } from "./queues.ts";
import type { Database } from "./schema.ts";

export interface VersionedQueueRef extends QueueRef {
  /** The version of the queue's last saved state. */
  version: number;
}

/** The repository's queue for a branch (in any letter case) and the version of its saved state. */
export async function findQueueVersion(
  db: Kysely<Database>,
  repositoryId: string,
  branch: string,
): Promise<VersionedQueueRef | undefined> {
  return db
    .selectFrom("queues")
    .innerJoin("queue_states", "queue_states.queue_id", "queues.id")
    .select(["queues.id", "queues.repository_id as repositoryId", "queues.branch", "queue_states.version"])
    .where("queues.repository_id", "=", repositoryId)
    .where("queues.branch_key", "=", branch.toLowerCase())
    .executeTakeFirst();
}
