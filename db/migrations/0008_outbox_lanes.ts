// The outbox under load and across replicas: a claim names the worker holding it (it renews its lease while
// the command runs, so a lease can be short and a dead worker's claim lapses in seconds); commands run in two
// lanes per queue, so merges and test branches never wait behind commit statuses and comments; and a status or
// comment carries the key of what it replaces, so a newer one drops an older one not yet sent.
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("outbox_commands").addColumn("claimed_by", "text").execute();
  await db.schema
    .alterTable("outbox_commands")
    .addColumn("lane", "text", (c) => c.notNull().defaultTo("effects"))
    .execute();
  await db.schema.alterTable("outbox_commands").addColumn("supersession_key", "text").execute();
  await db.schema
    .createIndex("outbox_commands_lane_pending")
    .on("outbox_commands")
    .columns(["queue_id", "lane", "seq"])
    .where(sql.ref("completed_at"), "is", null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("outbox_commands_lane_pending").execute();
  for (const column of ["supersession_key", "lane", "claimed_by"]) {
    await db.schema.alterTable("outbox_commands").dropColumn(column).execute();
  }
}
