// The outbox of commands the queue core asked for, executed at least once and in order per queue and lane.
import type { Kysely, Transaction } from "kysely";
import type { QueueCommand } from "../queue/index.ts";
import type { Claim, OutboxLane, PendingCommand } from "../ports/queue-persistence.ts";
import { newId } from "./ids.ts";
import type { Database } from "./schema.ts";

export type { OutboxLane } from "../ports/queue-persistence.ts";

/**
 * Commit statuses and PR comments only tell people what the queue did: nothing waits for them, so they run in
 * their own lane and a merge or a test branch never queues behind them.
 */
export function laneOf(command: QueueCommand): OutboxLane {
  return command.type === "set_commit_status" || command.type === "upsert_pr_comment"
    ? "notifications"
    : "effects";
}

/** A status is replaced by the next one for its commit and context; a comment by its next edit. */
function supersessionKeyOf(command: QueueCommand): string | null {
  switch (command.type) {
    case "set_commit_status":
      return `status:${command.sha}:${command.context}`;
    case "upsert_pr_comment":
      return `comment:${command.submissionId}`;
    default:
      return null;
  }
}

/**
 * Adds a step's commands after the queue's last one (`firstSeq` onwards); call inside the queue's transaction.
 * A status or comment edit not sent yet is dropped when a newer one replaces it: only the newest is ever sent.
 * One being sent right now (a live claim) is left to finish, and the newer one follows it.
 */
export async function enqueueCommands(
  trx: Transaction<Database>,
  queueId: string,
  firstSeq: number,
  commands: readonly QueueCommand[],
  now: number,
): Promise<void> {
  if (commands.length === 0) return;
  const rows = commands.map((command, index) => ({
    id: newId(),
    queue_id: queueId,
    seq: firstSeq + index,
    command: JSON.stringify(command),
    created_at: now,
    attempts: 0,
    next_attempt_at: now,
    lane: laneOf(command),
    supersession_key: supersessionKeyOf(command),
  }));
  const replaced = [...new Set(rows.flatMap((row) => row.supersession_key ?? []))];
  if (replaced.length > 0) {
    await trx
      .updateTable("outbox_commands")
      .set({ completed_at: now, claimed_until: null, claimed_by: null, last_error: "superseded" })
      .where("queue_id", "=", queueId)
      .where("supersession_key", "in", replaced)
      .where("completed_at", "is", null)
      .where((eb) => eb.or([eb("claimed_until", "is", null), eb("claimed_until", "<=", now)]))
      .execute();
  }
  const newest = new Map(rows.flatMap((row) => (row.supersession_key ? [[row.supersession_key, row]] : [])));
  await trx
    .insertInto("outbox_commands")
    .values(
      rows.map((row) =>
        row.supersession_key === null || newest.get(row.supersession_key) === row
          ? row
          : { ...row, completed_at: now, last_error: "superseded" },
      ),
    )
    .execute();
}

/**
 * Claims the next command of the queue's lane (a lane runs strictly in order) if it is due and no live claim
 * holds it. Returns undefined when there is nothing to do now.
 */
export async function claimNextCommand(
  db: Kysely<Database>,
  queueId: string,
  lane: OutboxLane,
  { holder, now, leaseMs }: Claim,
): Promise<PendingCommand | undefined> {
  const next = await db
    .selectFrom("outbox_commands")
    .select(["id", "seq", "command", "attempts", "next_attempt_at", "claimed_until"])
    .where("queue_id", "=", queueId)
    .where("lane", "=", lane)
    .where("completed_at", "is", null)
    .orderBy("seq")
    .limit(1)
    .executeTakeFirst();
  if (next === undefined || next.next_attempt_at > now) return undefined;
  if (next.claimed_until !== null && next.claimed_until > now) return undefined;
  // Conditions re-checked in the update: between the read and here, another worker may have claimed,
  // completed or postponed it.
  const claimed = await db
    .updateTable("outbox_commands")
    .set({ claimed_until: now + leaseMs, claimed_by: holder })
    .where("id", "=", next.id)
    .where("completed_at", "is", null)
    .where("next_attempt_at", "<=", now)
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

/** The heartbeat: extends the leases of the commands the holder is running, if they are still its own. */
export async function renewClaims(
  db: Kysely<Database>,
  ids: readonly string[],
  { holder, now, leaseMs }: Claim,
): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable("outbox_commands")
    .set({ claimed_until: now + leaseMs })
    .where("id", "in", ids)
    .where("claimed_by", "=", holder)
    .where("completed_at", "is", null)
    .execute();
}

/** Returns false when the command was completed already (by a replica that took over a lapsed claim). */
export async function completeCommand(
  trx: Transaction<Database> | Kysely<Database>,
  id: string,
  now: number,
  error: string | null = null,
): Promise<boolean> {
  const completed = await trx
    .updateTable("outbox_commands")
    .set({ completed_at: now, claimed_until: null, claimed_by: null, last_error: error })
    .where("id", "=", id)
    .where("completed_at", "is", null)
    .executeTakeFirst();
  return Number(completed.numUpdatedRows) === 1;
}

/** A failed or paused command waits until `nextAttemptAt`; only the holder of its claim may postpone it. */
export async function postponeCommand(
  db: Kysely<Database>,
  id: string,
  holder: string,
  retry: { attempts: number; nextAttemptAt: number; error: string },
): Promise<void> {
  await db
    .updateTable("outbox_commands")
    .set({
      attempts: retry.attempts,
      next_attempt_at: retry.nextAttemptAt,
      claimed_until: null,
      claimed_by: null,
      last_error: retry.error,
    })
    .where("id", "=", id)
    .where("claimed_by", "=", holder)
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
