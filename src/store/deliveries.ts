import type { Kysely } from "kysely";
import type { Database } from "./schema.ts";

/**
 * Records that a webhook delivery was processed (for a queue, when `key` names one); false when it already was
 * (contract 5.10: processed at most once per delivery id, so a redelivery changes nothing). For a queue, call it
 * inside the queue's transaction, so the delivery counts as processed there only together with its effect.
 */
export async function recordDelivery(
  db: Kysely<Database>,
  key: string,
  event: string,
  now: number,
): Promise<boolean> {
  const inserted = await db
    .insertInto("webhook_deliveries")
    .values({ id: key, event, received_at: now })
    .onConflict((oc) => oc.column("id").doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Forgets a delivery whose processing failed, so that redelivering it tries again. */
export async function forgetDelivery(db: Kysely<Database>, key: string): Promise<void> {
  await db.deleteFrom("webhook_deliveries").where("id", "=", key).execute();
}

/** GitHub redelivers within days, not weeks: older records only take space. */
export async function purgeDeliveries(db: Kysely<Database>, before: number): Promise<void> {
  await db.deleteFrom("webhook_deliveries").where("received_at", "<", before).execute();
}
