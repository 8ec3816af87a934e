import { type Kysely, sql } from "kysely";
import type { QueueLocation } from "../ports/queue-location.ts";
import { preparedQuery } from "./prepared-query.ts";
import type { Database } from "./schema.ts";

/** The columns of a QueueLocation, from `queues` joined with `repositories`. */
export const locationColumns = [
  "queues.id as queueId",
  "repositories.id as repositoryId",
  "repositories.host",
  "repositories.owner",
  "repositories.name",
  "repositories.installation_id as installationId",
  "queues.branch as targetBranch",
] as const;

export async function queueLocation(
  db: Kysely<Database>,
  queueId: string,
): Promise<QueueLocation | undefined> {
  return db
    .selectFrom("queues")
    .innerJoin("repositories", "repositories.id", "queues.repository_id")
    .select(locationColumns)
    .where("queues.id", "=", queueId)
    .executeTakeFirst();
}

/** The queue of a repository's branch, found from a webhook (names compare case-insensitively). */
export async function findQueueLocation(
  db: Kysely<Database>,
  repo: { host: string; owner: string; name: string },
  branch: string,
): Promise<QueueLocation | undefined> {
  return db
    .selectFrom("queues")
    .innerJoin("repositories", "repositories.id", "queues.repository_id")
    .select(locationColumns)
    .where("repositories.host", "=", repo.host.toLowerCase())
    .where("repositories.owner_key", "=", repo.owner.toLowerCase())
    .where("repositories.name_key", "=", repo.name.toLowerCase())
    .where("queues.branch_key", "=", branch.toLowerCase())
    .executeTakeFirst();
}

/** In-progress runs testing the commit (no PR number), then not-ready PRs at it. */
const concernedBy = preparedQuery((db, sha: string) =>
  db
    .selectFrom("test_runs")
    .select(["queue_id as queueId", sql<number | null>`null`.as("prNumber")])
    .where("test_branch_sha", "=", sha)
    .where("status", "=", "in_progress")
    .unionAll(
      db
        .selectFrom("pull_request_submissions")
        .select(["queue_id as queueId", "pr_number as prNumber"])
        .where("pr_sha", "=", sha)
        .where("state", "=", "not_ready"),
    ),
);

/**
 * Whom CI results on a commit concern, in one read (one per CI webhook): the queues with a run testing it, and the
 * queued, not-ready PRs whose head it is (the results may make them mergeable).
 */
export async function commitConcerns(
  db: Kysely<Database>,
  sha: string,
): Promise<{ testing: string[]; notReady: { queueId: string; prNumber: number }[] }> {
  const testing = new Set<string>();
  const notReady: { queueId: string; prNumber: number }[] = [];
  for (const { queueId, prNumber } of await concernedBy(db, sha)) {
    if (prNumber === null) testing.add(queueId);
    else notReady.push({ queueId, prNumber });
  }
  return { testing: [...testing], notReady };
}
