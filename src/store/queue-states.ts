// The queue core's state per queue, saved together with the commands it produced (the transactional
// outbox) and the projections that the API and metrics read.
import { type Kysely, sql, type Transaction, type Updateable } from "kysely";
import { lanesInFlight, nextDeadline, pullRequestsToRecheck, type QueueState } from "../queue/index.ts";
import type {
  LocatedQueueState,
  QueueNeedingAttention,
  QueueStep,
  StoredQueueState,
} from "../ports/queue-persistence.ts";
import { preparedListQuery, preparedQuery, preparedRecordQuery } from "./prepared-query.ts";
import { locationColumns } from "./queue-locations.ts";
import type { Connection, Dialect } from "./connection.ts";
import { enqueueCommands } from "./outbox.ts";
import { Projections } from "./queue-projections.ts";
import type { QueueStateCache } from "./state-cache.ts";
import type { QueueStatesTable } from "./engine-schema.ts";
import type { Database } from "./schema.ts";

/**
 * Serialises steps of one queue across replicas: on PostgreSQL a transaction-scoped advisory lock on the
 * queue; SQLite has a single writer, so its write transaction is the lock.
 */
export async function lockQueue(
  trx: Transaction<Database>,
  dialect: Dialect,
  queueId: string,
): Promise<void> {
  if (dialect === "postgres") {
    await sql`select pg_advisory_xact_lock(hashtextextended(${queueId}, 0))`.execute(trx);
  }
}

/** A queue's saved version and next command number, without its state. */
export interface QueueStateVersion {
  version: number;
  nextCommandSeq: number;
}

/**
 * The queue's state; with a cache, parsed again only when another step saved it since this process last did.
 * `versionOf` reads the version the cache is checked against (by default on `db` itself).
 */
export async function loadQueueState(
  db: Kysely<Database>,
  queueId: string,
  cache?: QueueStateCache,
  versionOf: (queueId: string) => Promise<QueueStateVersion | undefined> = (id) => queueStateVersion(db, id),
): Promise<StoredQueueState | undefined> {
  const current = cache && (await versionOf(queueId));
  const cached = current && cache?.get(queueId, current.version);
  if (current && cached) return { queueId, state: cached, ...current };
  return readQueueState(db, queueId, cache);
}

/** Where the queue is, with its saved version and next command number: the read a step begins with. */
export function locatedVersionQuery(db: Kysely<Database>, queueId: string) {
  return db
    .selectFrom("queue_states")
    .innerJoin("queues", "queues.id", "queue_states.queue_id")
    .innerJoin("repositories", "repositories.id", "queues.repository_id")
    .select([...locationColumns, "queue_states.version", "queue_states.next_command_seq as nextCommandSeq"])
    .where("queue_states.queue_id", "=", queueId);
}

const locatedVersionRow = preparedQuery(locatedVersionQuery);

/** `loadQueueState` with where the queue is, read together: what a step needs. */
export async function loadLocatedQueueState(
  db: Kysely<Database>,
  queueId: string,
  cache: QueueStateCache,
): Promise<LocatedQueueState | undefined> {
  const [row] = await locatedVersionRow(db, queueId);
  return locatedQueueState(db, queueId, row, cache);
}

/** The located state from `locatedVersionQuery`'s row: parsed again only when `cache` lacks that version. */
export async function locatedQueueState(
  db: Kysely<Database>,
  queueId: string,
  row: Awaited<ReturnType<ReturnType<typeof locatedVersionQuery>["executeTakeFirst"]>>,
  cache: QueueStateCache,
): Promise<LocatedQueueState | undefined> {
  if (row === undefined) return undefined;
  const { version, nextCommandSeq, ...location } = row;
  const cached = cache.get(queueId, version);
  const stored = cached
    ? { queueId, state: cached, version, nextCommandSeq }
    : await readQueueState(db, queueId, cache);
  return stored && { ...stored, location };
}

/** The queue's state as saved last, read and parsed (and kept in `cache`). */
export async function readQueueState(
  db: Kysely<Database>,
  queueId: string,
  cache?: QueueStateCache,
): Promise<StoredQueueState | undefined> {
  const row = await db
    .selectFrom("queue_states")
    .select(["state", "version", "next_command_seq"])
    .where("queue_id", "=", queueId)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  const state = JSON.parse(row.state) as QueueState;
  cache?.set(queueId, row.version, state);
  return { queueId, state, version: row.version, nextCommandSeq: row.next_command_seq };
}

const versionColumns = ["queue_id as queueId", "version", "next_command_seq as nextCommandSeq"] as const;

const versionRow = preparedQuery((db, queueId: string) =>
  db.selectFrom("queue_states").select(versionColumns).where("queue_id", "=", queueId),
);

async function queueStateVersion(
  db: Kysely<Database>,
  queueId: string,
): Promise<QueueStateVersion | undefined> {
  const [row] = await versionRow(db, queueId);
  return row && { version: row.version, nextCommandSeq: row.nextCommandSeq };
}

const versionRows = preparedListQuery((db, queueIds) =>
  db.selectFrom("queue_states").select(versionColumns).where("queue_id", "in", queueIds),
);

/** The versions of queues, by id, in one read. */
export async function queueStateVersions(
  connection: Connection,
  queueIds: readonly string[],
): Promise<Map<string, QueueStateVersion>> {
  const rows = await versionRows(connection, queueIds);
  return new Map(rows.map(({ queueId, version, nextCommandSeq }) => [queueId, { version, nextCommandSeq }]));
}

function runsInFlight(state: QueueState, pool: "any" | "bisection" = "any"): number {
  return Object.values(state.runs).filter(
    (run) => run.status === "in_progress" && (pool === "any" || run.purpose !== undefined),
  ).length;
}

export async function queuesNeedingAttention(
  db: Kysely<Database>,
  now: number,
): Promise<QueueNeedingAttention[]> {
  const rows = await db
    .selectFrom("queue_states")
    .select(["queue_id", "next_deadline", "runs_in_flight", "awaiting_mergeability"])
    .where((eb) =>
      eb.or([
        eb("next_deadline", "<=", now),
        eb("runs_in_flight", ">", 0),
        eb("awaiting_mergeability", ">", 0),
      ]),
    )
    .execute();
  return rows.map((row) => ({
    queueId: row.queue_id,
    deadlinePassed: row.next_deadline !== null && row.next_deadline <= now,
    runsInFlight: row.runs_in_flight > 0,
    awaitingMergeability: row.awaiting_mergeability > 0,
  }));
}

export async function insertQueueState(db: Kysely<Database>, state: QueueState, now: number): Promise<void> {
  await db
    .insertInto("queue_states")
    .values({
      queue_id: state.queueId,
      state: JSON.stringify(state),
      version: 1,
      next_command_seq: 1,
      next_deadline: null,
      runs_in_flight: 0,
      bisection_runs_in_flight: 0,
      awaiting_mergeability: 0,
      updated_at: now,
    })
    .execute();
}

/** A step's new state on the queue's row, with the columns the scheduler and the metrics read from it. */
const updateQueueState = preparedRecordQuery(
  (db, { queue_id, ...columns }: Required<Updateable<QueueStatesTable>>) =>
    db.updateTable("queue_states").set(columns).where("queue_id", "=", queue_id),
);

/** Saves the new state, its commands and its projections; call inside the queue's transaction. */
export async function saveQueueStep(trx: Transaction<Database>, step: QueueStep): Promise<void> {
  const { stored, next, now } = step;
  const segments = [...(step.through ?? []), step];
  const commandCount = segments.reduce((count, segment) => count + segment.commands.length, 0);
  await updateQueueState(trx, {
    queue_id: stored.queueId,
    state: JSON.stringify(next),
    version: stored.version + 1,
    next_command_seq: stored.nextCommandSeq + commandCount,
    next_deadline: nextDeadline(next),
    runs_in_flight: runsInFlight(next),
    bisection_runs_in_flight: runsInFlight(next, "bisection"),
    awaiting_mergeability: pullRequestsToRecheck(next).length,
    lanes_in_flight: lanesInFlight(next),
    updated_at: now,
  });
  let previous = stored.state;
  let seq = stored.nextCommandSeq;
  const changes = new Projections();
  for (const segment of segments) {
    await enqueueCommands(trx, stored.queueId, seq, segment.commands, segment.now);
    seq += segment.commands.length;
    changes.add(previous, segment);
    previous = segment.next;
  }
  await changes.save(trx, stored.queueId, step.prUrl);
}
