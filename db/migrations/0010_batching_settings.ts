// Batching and bisection (issue 11): the queues table mirrors the two extension settings that shape them, and a
// test run row names its pool, so metrics can tell the bisection pool's runs from the main line's.
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("queues")
    .addColumn("confirm_failures", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable("queues")
    .addColumn("adaptive_batching", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ["adaptive_batching", "confirm_failures"]) {
    await db.schema.alterTable("queues").dropColumn(column).execute();
  }
}
