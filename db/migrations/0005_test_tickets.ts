// Tickets linked to tests (contract 7.5: a record's `ticket` is null until one is linked): one row per linked test.
// Deleting a test case (the hourly pass forgets tests without results) deletes its ticket with it.
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("test_case_tickets")
    .addColumn("test_key", "bigint", (c) => c.primaryKey().references("test_cases.key").onDelete("cascade"))
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("linked_at", "bigint", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("test_case_tickets").execute();
}
