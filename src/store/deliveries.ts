import type { Kysely } from "kysely";
import type { DeliveryRecord } from "../ports/queue-persistence.ts";
import type { Database } from "./schema.ts";
import type { DeliveryClaim } from "../ports/delivery-claims.ts";
export type { DeliveryClaim } from "../ports/delivery-claims.ts";

/**
 * Records that a webhook delivery was processed (for a queue, when `key` names one); false when it already was
 * (processed at most once per delivery id, so a redelivery changes nothing: docs/queue.md#reliability). For a queue, call it
 * inside the queue's transaction, so the delivery counts as processed there only together with its effect.
 */
export async function recordDelivery(
  db: Kysely<Database>,
  key: string,
  event: string,
  now: number,
): Promise<boolean> {
  return (await recordDeliveries(db, [{ key, event, now }])).has(key);
}

/** `recordDelivery` for several deliveries in one statement: the keys recorded now, the others were already. */
export async function recordDeliveries(
  db: Kysely<Database>,
  deliveries: readonly DeliveryRecord[],
): Promise<Set<string>> {
  if (deliveries.length === 0) return new Set();
  const inserted = await recordDeliveriesQuery(db, deliveries).execute();
  return new Set(inserted.map((row) => row.id));
}

/** The statement of `recordDeliveries` (not empty): it returns the ids recorded now. */
export function recordDeliveriesQuery(db: Kysely<Database>, deliveries: readonly DeliveryRecord[]) {
  return db
    .insertInto("webhook_deliveries")
    .values(deliveries.map(({ key, event, now }) => ({ id: key, event, received_at: now, handled_at: now })))
    .onConflict((oc) => oc.column("id").doNothing())
    .returning("id");
}

/**
 * Claims a delivery for handling: "handled" when a handler already finished it, "in_progress" while another
 * handler holds it. A claim older than `staleMs` belonged to a process that died while handling: it is taken over.
 */
export async function claimDelivery(
  db: Kysely<Database>,
  key: string,
  event: string,
  now: number,
  staleMs: number,
): Promise<DeliveryClaim> {
  const inserted = await db
    .insertInto("webhook_deliveries")
    .values({ id: key, event, received_at: now, handled_at: null })
    .onConflict((oc) => oc.column("id").doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) return "claimed";
  const takenOver = await db
    .updateTable("webhook_deliveries")
    .set({ received_at: now })
    .where("id", "=", key)
    .where("handled_at", "is", null)
    .where("received_at", "<", now - staleMs)
    .executeTakeFirst();
  if (Number(takenOver.numUpdatedRows) > 0) return "claimed";
  const row = await db
    .selectFrom("webhook_deliveries")
    .select("handled_at")
    .where("id", "=", key)
    .executeTakeFirst();
  // Gone: its handler failed and released it just now; the caller may claim it again.
  if (row === undefined) return claimDelivery(db, key, event, now, staleMs);
  return row.handled_at === null ? "in_progress" : "handled";
}

/** The claimed delivery's handler finished: every copy of it from now on changes nothing. */
export async function completeDelivery(db: Kysely<Database>, key: string, now: number): Promise<void> {
  await db.updateTable("webhook_deliveries").set({ handled_at: now }).where("id", "=", key).execute();
}

/** Forgets a delivery whose processing failed, so that redelivering it tries again. */
export async function forgetDelivery(db: Kysely<Database>, key: string): Promise<void> {
  await db.deleteFrom("webhook_deliveries").where("id", "=", key).execute();
}

/** GitHub redelivers within days, not weeks: older records only take space. */
export async function purgeDeliveries(db: Kysely<Database>, before: number): Promise<void> {
  await db.deleteFrom("webhook_deliveries").where("received_at", "<", before).execute();
}
