import { type Kysely, sql } from "kysely";
import type { QueueLocation } from "../ports/queue-location.ts";
import type { Connection } from "./connection.ts";
import { preparedListQuery } from "./prepared-query.ts";
import type { Database } from "./schema.ts";
import type { CommitConcerns } from "../ports/queue-location.ts";
export type { CommitConcerns } from "../ports/queue-location.ts";

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

/** PR states of a queued PR: its own CI results count for its odds in the queue. */
const QUEUED_STATES = ["not_ready", "pending", "testing", "tests_passed", "pending_failure"];

/** In-progress runs testing the commits (no PR number), then queued PRs at them. */
const concernedBy = preparedListQuery((db, shas) =>
  db
    .selectFrom("test_runs")
    .select([
      "test_branch_sha as sha",
      "queue_id as queueId",
      sql<number | null>`null`.as("prNumber"),
      sql<string | null>`null`.as("state"),
    ])
    .where("test_branch_sha", "in", shas)
    .where("status", "=", "in_progress")
    .unionAll(
      db
        .selectFrom("pull_request_submissions")
        .select(["pr_sha as sha", "queue_id as queueId", "pr_number as prNumber", "state"])
        .where("pr_sha", "in", shas)
        .where("state", "in", QUEUED_STATES),
    ),
);

/** What concerns each of the commits, in one read (one per CI webhook, or per several gathered). */
export async function commitsConcerns(
  connection: Connection,
  shas: readonly string[],
): Promise<Map<string, CommitConcerns>> {
  const concerns = new Map(
    shas.map((sha) => [
      sha,
      {
        testing: new Set<string>(),
        notReady: [] as CommitConcerns["notReady"],
        queued: [] as CommitConcerns["queued"],
      },
    ]),
  );
  for (const { sha, queueId, prNumber, state } of await concernedBy(connection, shas)) {
    const concern = concerns.get(sha!)!;
    if (prNumber === null) concern.testing.add(queueId);
    else {
      concern.queued.push({ queueId, prNumber });
      if (state === "not_ready") concern.notReady.push({ queueId, prNumber });
    }
  }
  return new Map(
    [...concerns].map(([sha, { testing, notReady, queued }]) => [
      sha,
      { testing: [...testing], notReady, queued },
    ]),
  );
}

/**
 * The queues of a repository with a run whose test branch commit is `sha`, in flight or not (flake evidence from a
 * JUnit upload on it, docs/flake-evidence.md). Only the uploading repository's own queues: an upload names its
 * commit, and may not reach another repository's queue with it.
 */
export async function queuesWithRunAt(
  db: Kysely<Database>,
  repositoryId: string,
  sha: string,
): Promise<string[]> {
  const rows = await db
    .selectFrom("test_runs")
    .innerJoin("queues", "queues.id", "test_runs.queue_id")
    .select("test_runs.queue_id as queueId")
    .distinct()
    .where("queues.repository_id", "=", repositoryId)
    .where("test_runs.test_branch_sha", "=", sha)
    .execute();
  return rows.map((row) => row.queueId);
}
