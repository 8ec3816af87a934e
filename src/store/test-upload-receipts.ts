// Receipts of the uploads that named an idempotency key: a retried upload is answered from its receipt and
// stores nothing again. Kept as long as the upload's results.
import type { Kysely } from "kysely";
import type { Database } from "./schema.ts";
import type { UploadReceipt } from "../ports/test-health-persistence.ts";

export async function findUploadReceipt(
  db: Kysely<Database>,
  repositoryId: string,
  idempotencyKey: string,
): Promise<UploadReceipt | undefined> {
  return db
    .selectFrom("test_upload_receipts")
    .select(["request_hash as requestHash", "answer"])
    .where("repository_id", "=", repositoryId)
    .where("idempotency_key", "=", idempotencyKey)
    .executeTakeFirst();
}

export async function saveUploadReceipt(
  db: Kysely<Database>,
  receipt: UploadReceipt & { repositoryId: string; idempotencyKey: string; receivedAt: number },
): Promise<void> {
  await db
    .insertInto("test_upload_receipts")
    .values({
      repository_id: receipt.repositoryId,
      idempotency_key: receipt.idempotencyKey,
      request_hash: receipt.requestHash,
      answer: receipt.answer,
      received_at: receipt.receivedAt,
    })
    .execute();
}

export async function purgeUploadReceipts(db: Kysely<Database>, cutoff: number): Promise<number> {
  const deleted = await db
    .deleteFrom("test_upload_receipts")
    .where("received_at", "<", cutoff)
    .executeTakeFirst();
  return Number(deleted.numDeletedRows);
}
