// Queues' transactions on PostgreSQL in two round trips where Kysely's took seven: the opening, with the writes
// whose answers the steps need, and the closing. Several queues' steps may share one transaction (see
// postgres-shared-transactions.ts): a delivery to each of ten queues then costs one commit instead of ten.
// - The opening sends `begin`, each queue's advisory lock (in the order of the queues' ids, the same in every
//   replica, so that two shared transactions never wait for each other), the records of the webhook deliveries the
//   steps handle (their answers say which were handled before) and, per queue, the read of where it is and which
//   version of its state is saved, as one simple query. Each statement takes its own snapshot (read committed), so
//   the reads run after the locks are held and see everything their previous holders committed, as reads after
//   separate lock statements do. It is sent once every queue's work has asked for it: by `open` with its
//   deliveries, or by its first query.
// - The closing sends the steps' saved states, commands and projections (writes whose answers nobody reads) with
//   `commit`, again as one simple query: a failing write fails the commit, so all of it is saved or none.
// A simple query of several statements takes no parameters: the values are sent as literals, each escaped by the
// driver's rules (escapeLiteral below) from the text the driver would have sent as the parameter.
import { Kysely, PostgresDialect, type Transaction } from "kysely";
import type * as pg from "pg";
import { createRequire } from "node:module";
import type { DeliveryRecord, LocatedQueueState } from "../ports/queue-persistence.ts";
import { recordDeliveriesQuery } from "./deliveries.ts";
import { locatedVersionQuery } from "./queue-states.ts";
import type { Database } from "./schema.ts";

/** The row `locatedVersionQuery` reads: where the queue is, and its saved version and next command number. */
export type LocatedVersion = LocatedQueueState["location"] & { version: number; nextCommandSeq: number };

/**
 * The text the driver sends for a parameter's value (dates, arrays, buffers and objects each in their form). Loaded
 * on first use: a process on SQLite never loads the driver.
 */
let prepareValue: ((value: unknown) => unknown) | undefined;

/** `value` as an SQL literal that PostgreSQL reads as it would read the parameter. */
function literal(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "number" && Number.isSafeInteger(value))
    return value < 0 ? `(${value})` : String(value);
  prepareValue ??= (
    createRequire(import.meta.url)("pg/lib/utils") as { prepareValue(value: unknown): unknown }
  ).prepareValue;
  const text = prepareValue(value);
  return text === null ? "null" : escapeLiteral(String(text));
}

/**
 * The driver's escapeLiteral, in one pass of the regular expression engine: the driver's appends one character at a
 * time, which for a queue's state (tens of KiB at every step) took a tenth of the service's CPU per delivery. As the
 * driver does, quotes and backslashes are doubled, and a literal with a backslash is an escape string (E'…').
 */
export function escapeLiteral(text: string): string {
  const quoted = `'${text.replace(/['\\]/g, "$&$&")}'`;
  return text.includes("\\") ? ` E${quoted}` : quoted;
}

/** The compiled statement with its parameters in place, as literals. */
function inline(text: string, values: readonly unknown[] = []): string {
  return text.replace(/\$(\d+)/g, (_, place: string) => literal(values[Number(place) - 1]));
}

/** What the opening found: where the queue is (undefined: no such queue), and the deliveries recorded by it. */
export interface Opening {
  located: LocatedVersion | undefined;
  recorded: Set<string>;
}

/** What a queue's transaction on PostgreSQL works with. */
export interface PostgresQueueTransaction {
  /** Runs each query at once. */
  trx: Transaction<Database>;
  /**
   * Runs writes at the commit (or before the next query of `trx`), answering nothing (no rows, no count): only for
   * writes whose answers nobody reads.
   */
  atCommit: Transaction<Database>;
  /**
   * Sends the opening now, recording `deliveries` in it (see `recordDeliveries`), and answers what it found;
   * undefined when the transaction has opened already (by an earlier call, or the first query of `trx`).
   */
  open(deliveries: readonly DeliveryRecord[]): Promise<Opening> | undefined;
}

/** A queue's part of a shared transaction: what its work asked of the opening, and its writes left for the commit. */
class Part {
  readonly queueId: string;
  /** The deliveries it records in the opening; undefined until it asks for the opening. */
  deliveries: readonly DeliveryRecord[] | undefined;
  /** Its work has resolved or thrown: the opening no longer waits for it. */
  settled = false;
  readonly deferred: string[] = [];
  readonly opening: Promise<Opening>;
  answer!: (opening: Promise<Opening>) => void;

  constructor(queueId: string) {
    this.queueId = queueId;
    this.opening = new Promise((resolve) => (this.answer = resolve));
    // A work that failed before reading its opening leaves it unread; the transaction fails by that work anyway.
    this.opening.catch(() => undefined);
  }
}

/**
 * What a pooled client holds for each part of a transaction on it: a Kysely on the client, and one whose writes
 * wait for the commit, with their SQL. They are made once per client and lane (a Kysely is not cheap to make) and
 * point at the part they serve for the transaction under way.
 */
interface Lane {
  part: Part;
  /** Asks for the transaction's opening on behalf of a part (sent once every part has asked). */
  ask: (part: Part) => void;
  db: Transaction<Database>;
  deferring: Transaction<Database>;
}

const lanes = new WeakMap<pg.PoolClient, Lane[]>();

/**
 * A Kysely that runs every query with `query` and never gives the client back to the pool. Used only between
 * `begin` and `commit`, it is a transaction in all but Kysely's bookkeeping, and typed as one so that the functions
 * that must run inside a transaction accept it.
 */
function kyselyWith(query: (text: string, values?: unknown[]) => Promise<unknown>): Transaction<Database> {
  const connection = { query, release: () => undefined };
  const pool = { connect: async () => connection, end: async () => undefined };
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: pool as unknown as pg.Pool }) });
  return db as unknown as Transaction<Database>;
}

function laneOf(client: pg.PoolClient, index: number, part: Part, ask: (part: Part) => void): Lane {
  let held = lanes.get(client);
  if (held === undefined) lanes.set(client, (held = []));
  const found = held[index];
  if (found !== undefined) {
    found.part = part;
    found.ask = ask;
    return found;
  }
  const lane: Lane = {
    part,
    ask,
    // A query runs after the opening, and after its part's deferred writes, which it must see: they go first, in
    // a round trip of their own.
    db: kyselyWith(async (text, values) => {
      const current = lane.part;
      lane.ask(current);
      await current.opening;
      if (current.deferred.length > 0) await client.query(current.deferred.splice(0).join(";\n"));
      return client.query(text, values);
    }),
    deferring: kyselyWith(async (text, values) => {
      lane.part.deferred.push(inline(text, values));
      return { command: "DEFERRED", rowCount: 0, rows: [] };
    }),
  };
  held[index] = lane;
  return lane;
}

/** The located read's SQL, the same on every PostgreSQL connection: compiled once. */
let locatedReadSql: string | undefined;

function locatedRead(db: Kysely<Database>, queueId: string): string {
  if (locatedReadSql === undefined) {
    const read = locatedVersionQuery(db, "").compile();
    if (read.parameters.length !== 1 || read.sql.split("$1").length !== 2) {
      throw new Error("the located read must take exactly the queue's id");
    }
    locatedReadSql = read.sql;
  }
  return locatedReadSql.replace("$1", escapeLiteral(queueId));
}

/**
 * Sends the opening of the parts that asked for it (`begin`, their locks in the order of their ids, their
 * deliveries' records, their located reads) and hands each part its answer.
 */
function sendOpening(client: pg.PoolClient, db: Kysely<Database>, parts: readonly Part[]): void {
  const statements = ["begin"];
  const ids = [...new Set(parts.map((part) => part.queueId))].sort();
  for (const id of ids)
    statements.push(`select pg_advisory_xact_lock(hashtextextended(${escapeLiteral(id)}, 0))`);
  const recordsAt = parts.map((part) => {
    if (part.deliveries === undefined || part.deliveries.length === 0) return undefined;
    const { sql, parameters } = recordDeliveriesQuery(db, part.deliveries).compile();
    return statements.push(inline(sql, parameters)) - 1;
  });
  const readsAt = parts.map((part) => statements.push(locatedRead(db, part.queueId)) - 1);
  const results = client.query(statements.join("; ")) as unknown as Promise<pg.QueryResult[]>;
  for (const [index, part] of parts.entries()) {
    part.answer(
      results.then((answers) => {
        const records = recordsAt[index];
        return {
          located: answers[readsAt[index]!]!.rows[0] as LocatedVersion | undefined,
          recorded: new Set(
            records === undefined ? [] : answers[records]!.rows.map((row: { id: string }) => row.id),
          ),
        };
      }),
    );
  }
}

/** What one queue's work in a shared transaction came to. */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** One queue's work, as a shared transaction takes it. */
export interface Member<T> {
  queueId: string;
  work: (transaction: PostgresQueueTransaction) => Promise<T>;
}

/**
 * Runs each member's work in one transaction on one client of `pool`, holding every member's queue lock. Committed
 * with every work's writes when all of them resolve; rolled back when any of them or the commit fails: then each
 * work's outcome is answered as it came, and the commit's failure as every member's. Works that never needed the
 * database cost no round trip.
 */
export async function inSharedTransaction<T>(
  pool: pg.Pool,
  members: readonly Member<T>[],
): Promise<{ committed: boolean; outcomes: Settled<T>[] }> {
  const client = await pool.connect();
  const parts = members.map((member) => new Part(member.queueId));
  let opened = false;
  const sendWhenAllAsked = () => {
    if (opened || parts.some((part) => part.deliveries === undefined && !part.settled)) return;
    const asking = parts.filter((part) => part.deliveries !== undefined);
    if (asking.length === 0) return;
    opened = true;
    sendOpening(client, db, asking);
  };
  const ask = (part: Part, deliveries: readonly DeliveryRecord[] = []): boolean => {
    if (part.deliveries !== undefined) return false;
    part.deliveries = deliveries;
    sendWhenAllAsked();
    return true;
  };
  const db = laneOf(client, 0, parts[0]!, ask).db;
  const outcomes = await Promise.all(
    members.map(async ({ work }, index): Promise<Settled<T>> => {
      const part = parts[index]!;
      const lane = laneOf(client, index, part, ask);
      try {
        const open = (deliveries: readonly DeliveryRecord[]) =>
          ask(part, deliveries) ? part.opening : undefined;
        const value = await work({ trx: lane.db, atCommit: lane.deferring, open });
        // Writes left for the commit need the transaction, even from a work that never read.
        if (part.deferred.length > 0) ask(part);
        return { ok: true, value };
      } catch (error) {
        return { ok: false, error };
      } finally {
        part.settled = true;
        sendWhenAllAsked();
      }
    }),
  );
  let committed = outcomes.every((outcome) => outcome.ok);
  let failure: unknown;
  if (committed && opened) {
    await client.query([...parts.flatMap((part) => part.deferred), "commit"].join(";\n")).then(
      () => undefined,
      (error: unknown) => {
        committed = false;
        failure = error;
      },
    );
  }
  // A client whose rollback fails (its connection gone) is not given to the next user: the pool drops it.
  const broken =
    committed || !opened
      ? undefined
      : await client.query("rollback").then(
          () => undefined,
          (error: Error) => error,
        );
  client.release(broken);
  const answers =
    failure === undefined ? outcomes : outcomes.map(() => ({ ok: false as const, error: failure }));
  return { committed: committed || !opened, outcomes: answers };
}

function answer<T>(settled: Settled<T>): T {
  if (settled.ok) return settled.value;
  throw settled.error;
}

/**
 * Runs `work` in a transaction of its own holding the queue's lock, on one client of `pool`. Committed, with the
 * writes `work` left for the commit, when `work` resolves; rolled back when it or the commit fails.
 */
export async function inPostgresQueueTransaction<T>(
  pool: pg.Pool,
  queueId: string,
  work: (transaction: PostgresQueueTransaction) => Promise<T>,
): Promise<T> {
  const { outcomes } = await inSharedTransaction(pool, [{ queueId, work }]);
  return answer(outcomes[0]!);
}
