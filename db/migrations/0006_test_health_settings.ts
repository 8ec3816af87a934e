// Per-repository test-health settings (contract 7.4): whether flaky tests are quarantined automatically. A
// repository without a row has the defaults, so existing repositories keep auto-quarantine on.
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("test_health_settings")
    .addColumn("repository_id", "text", (c) =>
      c.primaryKey().references("repositories.id").onDelete("cascade"),
    )
    .addColumn("auto_quarantine", "integer", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("test_health_settings").execute();
}
