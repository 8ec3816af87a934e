import type { Kysely, Transaction } from "kysely";
import type { Database } from "./schema.ts";

/**
 * Records that a webhook delivery was processed for a queue; false when it already was (contract 5.10:
 * processed at most once per delivery id, so a redelivery changes nothing). Call inside the queue's
 * transaction, so a delivery counts as processed only together with its effect.
 */
export async function recordDelivery(
  trx: Transaction<Database>,
  key: string,
  event: string,
  now: number,
): Promise<boolean> {
  const inserted = await trx
    .insertInto("webhook_deliveries")
    .values({ id: key, event, received_at: now })
    .onConflict((oc) => oc.column("id").doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** GitHub redelivers within days, not weeks: older records only take space. */
export async function purgeDeliveries(db: Kysely<Database>, before: number): Promise<void> {
  await db.deleteFrom("webhook_deliveries").where("received_at", "<", before).execute();
}
