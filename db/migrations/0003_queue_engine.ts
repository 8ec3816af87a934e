// The merge queue engine: each queue's core state (the source of truth), the transactional outbox of
// commands, processed webhook deliveries, and projections of the state that the API and metrics query
// (submissions, their transitions, test runs).
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("queue_states")
    .addColumn("queue_id", "text", (c) => c.primaryKey().references("queues.id").onDelete("cascade"))
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("version", "integer", (c) => c.notNull())
    .addColumn("next_command_seq", "integer", (c) => c.notNull())
    // When the queue next needs a tick (testing timeout), and whether runs are in flight (polling).
    .addColumn("next_deadline", "bigint")
    .addColumn("runs_in_flight", "integer", (c) => c.notNull())
    // Queued PRs not ready yet: their mergeability is re-read rather than waiting for a webhook.
    .addColumn("awaiting_mergeability", "integer", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("outbox_commands")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("queue_id", "text", (c) => c.notNull().references("queues.id").onDelete("cascade"))
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("command", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull())
    .addColumn("next_attempt_at", "bigint", (c) => c.notNull())
    .addColumn("claimed_until", "bigint")
    .addColumn("completed_at", "bigint")
    .addColumn("last_error", "text")
    .addUniqueConstraint("outbox_commands_order", ["queue_id", "seq"])
    .execute();
  await db.schema
    .createIndex("outbox_commands_pending")
    .on("outbox_commands")
    .columns(["completed_at", "next_attempt_at"])
    .execute();

  await db.schema
    .createTable("webhook_deliveries")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("event", "text", (c) => c.notNull())
    .addColumn("received_at", "bigint", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("test_runs")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("queue_id", "text", (c) => c.notNull().references("queues.id").onDelete("cascade"))
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("test_branch", "text", (c) => c.notNull())
    .addColumn("test_branch_sha", "text")
    .addColumn("started_at", "bigint", (c) => c.notNull())
    .addColumn("ended_at", "bigint")
    .addColumn("end_reason", "text")
    .addColumn("record", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("test_runs_by_sha").on("test_runs").column("test_branch_sha").execute();
  await db.schema
    .createIndex("test_runs_by_queue")
    .on("test_runs")
    .columns(["queue_id", "ended_at"])
    .execute();

  await db.schema
    .alterTable("pull_request_submissions")
    .addColumn("record", "text", (c) => c.notNull().defaultTo("{}"))
    .execute();
  await db.schema
    .createIndex("submissions_by_queue_submitted")
    .on("pull_request_submissions")
    .columns(["queue_id", "submitted_at"])
    .execute();

  // CI results on a PR's own head can make it mergeable: they are routed to the queues holding it.
  await db.schema
    .createIndex("submissions_by_head")
    .on("pull_request_submissions")
    .columns(["pr_sha", "state"])
    .execute();

  await db.schema
    .createTable("pull_request_transitions")
    .addColumn("submission_id", "text", (c) =>
      c.notNull().references("pull_request_submissions.id").onDelete("cascade"),
    )
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("queue_id", "text", (c) => c.notNull())
    .addColumn("pr_number", "integer", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("pull_request_transitions_pk", ["submission_id", "seq"])
    .execute();
  await db.schema
    .createIndex("transitions_by_queue_time")
    .on("pull_request_transitions")
    .columns(["queue_id", "at"])
    .execute();

  // setImpactedTargets (contract 5.7) often runs in CI before the PR is submitted: kept per head SHA.
  await db.schema
    .createTable("impacted_targets")
    .addColumn("queue_id", "text", (c) => c.notNull().references("queues.id").onDelete("cascade"))
    .addColumn("pr_number", "integer", (c) => c.notNull())
    .addColumn("head_sha", "text", (c) => c.notNull())
    .addColumn("targets", "text", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("impacted_targets_pk", ["queue_id", "pr_number"])
    .execute();

  // The comment the queue keeps up to date per submission (contract 5.10), so it is edited, not re-posted.
  await db.schema
    .createTable("pull_request_comments")
    .addColumn("submission_id", "text", (c) => c.primaryKey())
    .addColumn("queue_id", "text", (c) => c.notNull().references("queues.id").onDelete("cascade"))
    .addColumn("comment_id", "bigint", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    "pull_request_comments",
    "impacted_targets",
    "pull_request_transitions",
    "test_runs",
    "webhook_deliveries",
    "outbox_commands",
    "queue_states",
  ]) {
    await db.schema.dropTable(table).execute();
  }
  await db.schema.dropIndex("submissions_by_head").execute();
  await db.schema.dropIndex("submissions_by_queue_submitted").execute();
  await db.schema.alterTable("pull_request_submissions").dropColumn("record").execute();
}
