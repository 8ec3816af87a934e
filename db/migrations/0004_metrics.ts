// The cumulative counters of GET /v1/getMergeQueueMetrics (contract 6: mq_pr_conclusions_total,
// mq_test_runs_total), kept per queue and advanced in the transaction that saves each queue step, so a scrape
// reads a handful of rows however long the queue's history grows. Existing history is counted once, here.
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("queue_metric_counters")
    .addColumn("queue_id", "text", (c) => c.notNull().references("queues.id").onDelete("cascade"))
    .addColumn("metric", "text", (c) => c.notNull())
    .addColumn("label", "text", (c) => c.notNull())
    .addColumn("value", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("queue_metric_counters_pk", ["queue_id", "metric", "label"])
    .execute();
  await sql`
    insert into queue_metric_counters (queue_id, metric, label, value)
    select queue_id, 'pr_conclusions', state, count(*) from pull_request_submissions
    where state in ('merged', 'failed', 'cancelled') group by queue_id, state`.execute(db);
  await sql`
    insert into queue_metric_counters (queue_id, metric, label, value)
    select queue_id, 'test_runs', status, count(*) from test_runs
    where status <> 'in_progress' group by queue_id, status`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("queue_metric_counters").execute();
}
