// Parallel mode (issue 12): the queue's state says how many independent lanes its active PRs make, so the
// metrics scrape reads a number instead of every queue's state. Queues saved before count none until their
// next step.
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("queue_states")
    .addColumn("lanes_in_flight", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("queue_states").dropColumn("lanes_in_flight").execute();
}
