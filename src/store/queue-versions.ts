// The saved version of a queue's state: a cheap read (no state document) that tells a reader whether the state it
// parsed before is still the latest, on every replica, since each saved step increments it.
import type { Kysely } from "kysely";
import type { RepositoryRef } from "../ports/github-reads.ts";
import type { Repository } from "./repositories.ts";
import { ContentMemo } from "./content-mark.ts";
import { preparedQuery } from "./prepared-query.ts";
import type { Database } from "./schema.ts";
import type { VersionedQueueRef } from "../ports/queue-records.ts";
export type { VersionedQueueRef } from "../ports/queue-records.ts";

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

const installedRepositoryQueue = preparedQuery(
  (db, host: string, ownerKey: string, nameKey: string, branchKey: string) =>
    db
      .selectFrom("repositories")
      .innerJoin("queues", "queues.repository_id", "repositories.id")
      .innerJoin("queue_states", "queue_states.queue_id", "queues.id")
      .select([
        "repositories.id as repositoryId",
        "repositories.host",
        "repositories.owner",
        "repositories.name",
        "repositories.installation_id as installationId",
        "queues.id as queueId",
        "queues.branch",
        "queue_states.version",
      ])
      .where("repositories.host", "=", host)
      .where("repositories.owner_key", "=", ownerKey)
      .where("repositories.name_key", "=", nameKey)
      .where("repositories.installation_id", "is not", null)
      .where("queues.branch_key", "=", branchKey),
);

/**
 * The installed repository `ref` names with its queue for `branch` and the version of the queue's state, in one
 * query: what every queue request reads. Undefined when the repository has no installation recorded or no such
 * queue.
 */
export function findInstalledRepositoryQueue(
  db: Kysely<Database>,
  ref: RepositoryRef,
  branch: string,
): Promise<InstalledRepositoryQueue | undefined> {
  const keys = [ref.host, ref.owner, ref.name, branch].map((key) => key.toLowerCase()) as [
    string,
    string,
    string,
    string,
  ];
  return installedRepositoryQueues.get(db, keys.join("\n"), () => readInstalledRepositoryQueue(db, ...keys));
}

interface InstalledRepositoryQueue {
  repository: Repository;
  queue: VersionedQueueRef;
}

/** Kept while the database is unchanged: a saved step (a new version) or any other write drops them all. */
const installedRepositoryQueues = new ContentMemo<InstalledRepositoryQueue | undefined>(4096);

async function readInstalledRepositoryQueue(
  db: Kysely<Database>,
  ...keys: [host: string, ownerKey: string, nameKey: string, branchKey: string]
): Promise<InstalledRepositoryQueue | undefined> {
  const [row] = await installedRepositoryQueue(db, ...keys);
  if (row === undefined) return undefined;
  const { repositoryId, host, owner, name, installationId, queueId, branch: queueBranch, version } = row;
  return {
    repository: { id: repositoryId, host, owner, name, installationId },
    queue: { id: queueId, repositoryId, branch: queueBranch, version },
  };
}
