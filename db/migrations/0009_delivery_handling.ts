// A webhook delivery claimed by a replica is only handled once its handler finished: a replica killed while
// handling one must not leave a claim that makes every copy of the delivery count as done.
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("webhook_deliveries").addColumn("handled_at", "bigint").execute();
  await sql`update webhook_deliveries set handled_at = received_at`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("webhook_deliveries").dropColumn("handled_at").execute();
}
