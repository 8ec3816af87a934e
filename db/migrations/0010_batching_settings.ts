// Batching and bisection (issue 11): the queues table mirrors the two extension settings that shape them, and
// test runs are told apart by pool (main line, or bisection and confirmation), so metrics can show each pool.
// Runs recorded before are main-line runs, as the defaults say.
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
  await db.schema
    .alterTable("test_runs")
    .addColumn("purpose", "text", (c) => c.notNull().defaultTo("main"))
    .execute();
  await db.schema
    .alterTable("queue_states")
    .addColumn("bisection_runs_in_flight", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("queue_states").dropColumn("bisection_runs_in_flight").execute();
  await db.schema.alterTable("test_runs").dropColumn("purpose").execute();
  for (const column of ["adaptive_batching", "confirm_failures"]) {
    await db.schema.alterTable("queues").dropColumn(column).execute();
  }
}
