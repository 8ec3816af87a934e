import type { Kysely } from "kysely";
import type { QueueLocation } from "../ports/queue-location.ts";
import type { Database } from "./schema.ts";

const columns = [
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
    .select(columns)
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
    .select(columns)
    .where("repositories.host", "=", repo.host.toLowerCase())
    .where("repositories.owner_key", "=", repo.owner.toLowerCase())
    .where("repositories.name_key", "=", repo.name.toLowerCase())
    .where("queues.branch_key", "=", branch.toLowerCase())
    .executeTakeFirst();
}

/** Queues with a run testing this commit: CI results about it concern them. */
export async function queuesTestingSha(db: Kysely<Database>, sha: string): Promise<string[]> {
  const rows = await db
    .selectFrom("test_runs")
    .select("queue_id")
    .distinct()
    .where("test_branch_sha", "=", sha)
    .where("status", "=", "in_progress")
    .execute();
  return rows.map((row) => row.queue_id);
}

/** Queued, not-ready PRs whose head is this commit: CI results on it may make them mergeable. */
export async function notReadyPullRequestsAt(
  db: Kysely<Database>,
  sha: string,
): Promise<{ queueId: string; prNumber: number }[]> {
  return db
    .selectFrom("pull_request_submissions")
    .select(["queue_id as queueId", "pr_number as prNumber"])
    .where("pr_sha", "=", sha)
    .where("state", "=", "not_ready")
    .execute();
}
