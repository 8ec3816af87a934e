// Indexes behind GET /v1/getMergeQueueMetrics (contract 6). The cumulative counters count a queue's whole
// history at every scrape; covering indexes answer those counts without reading a row. Submissions are counted
// by (queue_id, state), which the foundation migration indexes; the one-hour windows read transitions and runs
// through the (queue_id, at) and (queue_id, ended_at) indexes of migration 0003.
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  // mq_test_runs_total{status} and mq_testing_slots_active.
  await db.schema
    .createIndex("test_runs_by_queue_status")
    .on("test_runs")
    .columns(["queue_id", "status"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("test_runs_by_queue_status").execute();
}
