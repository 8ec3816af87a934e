// Test health without GitHub: what an upload's checkout tells of its repository (its default branch and CODEOWNERS,
// contract 7.3 and 7.5), and the receipt of each upload that named an idempotency key, so that a client retrying
// it is answered the first answer instead of having its results stored twice.
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("test_health_checkouts")
    .addColumn("repository_id", "text", (c) =>
      c.primaryKey().references("repositories.id").onDelete("cascade"),
    )
    .addColumn("default_branch", "text")
    .addColumn("codeowners", "text")
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("test_upload_receipts")
    .addColumn("repository_id", "text", (c) => c.notNull().references("repositories.id").onDelete("cascade"))
    .addColumn("idempotency_key", "text", (c) => c.notNull())
    .addColumn("request_hash", "text", (c) => c.notNull())
    .addColumn("answer", "text", (c) => c.notNull())
    .addColumn("received_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("test_upload_receipts_pkey", ["repository_id", "idempotency_key"])
    .execute();
  await db.schema
    .createIndex("test_upload_receipts_received_at")
    .on("test_upload_receipts")
    .column("received_at")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("test_upload_receipts").execute();
  await db.schema.dropTable("test_health_checkouts").execute();
}
