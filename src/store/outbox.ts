// The outbox of commands the queue core asked for, executed in order per queue, at least once.
import type { Kysely, Transaction } from "kysely";
import type { QueueCommand } from "../queue/index.ts";
import type { Database } from "./schema.ts";

export interface PendingCommand {
  id: string;
  queueId: string;
  seq: number;
  command: QueueCommand;
  attempts: number;
}

/**
 * Claims the queue's next command (commands of a queue run strictly in order) if it is due and no other
 * worker holds it. Returns undefined when there is nothing to do now.
 */
export async function claimNextCommand(
  db: Kysely<Database>,
  queueId: string,
  now: number,
  leaseMs: number,
): Promise<PendingCommand | undefined> {
  const next = await db
    .selectFrom("outbox_commands")
    .select(["id", "seq", "command", "attempts", "next_attempt_at", "claimed_until"])
    .where("queue_id", "=", queueId)
    .where("completed_at", "is", null)
    .orderBy("seq")
    .limit(1)
    .executeTakeFirst();
  if (next === undefined || next.next_attempt_at > now) return undefined;
  if (next.claimed_until !== null && next.claimed_until > now) return undefined;
  const claimed = await db
    .updateTable("outbox_commands")
    .set({ claimed_until: now + leaseMs })
    .where("id", "=", next.id)
    .where("completed_at", "is", null)
    .where((eb) => eb.or([eb("claimed_until", "is", null), eb("claimed_until", "<=", now)]))
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) !== 1) return undefined;
  return {
    id: next.id,
    queueId,
    seq: next.seq,
    command: JSON.parse(next.command) as QueueCommand,
    attempts: next.attempts,
  };
}

export async function completeCommand(
  trx: Transaction<Database> | Kysely<Database>,
  id: string,
  now: number,
  error: string | null = null,
): Promise<void> {
  await trx
    .updateTable("outbox_commands")
    .set({ completed_at: now, claimed_until: null, last_error: error })
    .where("id", "=", id)
    .execute();
}

export async function postponeCommand(
  db: Kysely<Database>,
  id: string,
  attempts: number,
  nextAttemptAt: number,
  error: string,
): Promise<void> {
  await db
    .updateTable("outbox_commands")
    .set({ attempts, next_attempt_at: nextAttemptAt, claimed_until: null, last_error: error })
    .where("id", "=", id)
    .execute();
}

/** Queues with a command due now (after a restart, a retry delay, or another replica's lapsed lease). */
export async function queuesWithDueCommands(db: Kysely<Database>, now: number): Promise<string[]> {
  const rows = await db
    .selectFrom("outbox_commands")
    .select("queue_id")
    .distinct()
    .where("completed_at", "is", null)
    .where("next_attempt_at", "<=", now)
    .where((eb) => eb.or([eb("claimed_until", "is", null), eb("claimed_until", "<=", now)]))
    .execute();
  return rows.map((row) => row.queue_id);
}

/** Completed commands are history only; keep a day of them for operators. */
export async function purgeCompletedCommands(db: Kysely<Database>, before: number): Promise<void> {
  await db.deleteFrom("outbox_commands").where("completed_at", "<", before).execute();
}
