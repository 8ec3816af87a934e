// A queue's transaction on PostgreSQL in two round trips where Kysely's took seven: the opening, with the writes
// whose answers the step needs, and the closing.
// - The opening sends `begin`, the queue's advisory lock, the records of the webhook deliveries the step handles
//   (their answers say which were handled before) and the read of where the queue is and which version of its state
//   is saved as one simple query. Each statement takes its own snapshot (read committed), so the read runs after the
//   lock is held and sees everything its previous holder committed, as a read after a separate lock statement does.
//   It is sent when the work first needs the database: by `open` with the deliveries, or by its first query.
// - The closing sends the step's saved state, commands and projections (writes whose answers nobody reads) with
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

/**
 * What one pooled client holds: a Kysely on it, and one whose writes wait for the commit, with their SQL; and, while
 * a transaction on it has not sent its opening, what sends it.
 */
interface HeldClient {
  db: Transaction<Database>;
  deferring: Transaction<Database>;
  deferred: string[];
  unopened: (() => Promise<unknown>) | undefined;
}

const held = new WeakMap<pg.PoolClient, HeldClient>();

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

function holdClient(client: pg.PoolClient): HeldClient {
  let found = held.get(client);
  if (found === undefined) {
    const deferred: string[] = [];
    const holding: HeldClient = {
      // A query runs after the opening, and after deferred writes, which it must see: they go first, in a round
      // trip of their own.
      db: kyselyWith(async (text, values) => {
        await holding.unopened?.();
        if (deferred.length > 0) await client.query(deferred.splice(0).join(";\n"));
        return client.query(text, values);
      }),
      deferring: kyselyWith(async (text, values) => {
        deferred.push(inline(text, values));
        return { command: "DEFERRED", rowCount: 0, rows: [] };
      }),
      deferred,
      unopened: undefined,
    };
    found = holding;
    held.set(client, found);
  }
  return found;
}

/** The located read's SQL, the same on every PostgreSQL connection: compiled once. */
let locatedReadSql: string | undefined;

/**
 * The opening statements: `begin`, the lock, the deliveries' records when there are any, and the located read, with
 * the queue's id in place of its one parameter.
 */
function openingSql(db: Kysely<Database>, queueId: string, deliveries: readonly DeliveryRecord[]): string {
  if (locatedReadSql === undefined) {
    const read = locatedVersionQuery(db, "").compile();
    if (read.parameters.length !== 1 || read.sql.split("$1").length !== 2) {
      throw new Error("the located read must take exactly the queue's id");
    }
    locatedReadSql = read.sql;
  }
  const id = escapeLiteral(queueId);
  const statements = ["begin", `select pg_advisory_xact_lock(hashtextextended(${id}, 0))`];
  if (deliveries.length > 0) {
    const { sql, parameters } = recordDeliveriesQuery(db, deliveries).compile();
    statements.push(inline(sql, parameters));
  }
  statements.push(locatedReadSql.replace("$1", id));
  return statements.join("; ");
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

/**
 * Runs `work` in a transaction holding the queue's lock, on one client of `pool`. Committed, with the writes `work`
 * left for the commit, when `work` resolves; rolled back when it or the commit fails. A `work` that never needed the
 * database costs no round trip.
 */
export async function inPostgresQueueTransaction<T>(
  pool: pg.Pool,
  queueId: string,
  work: (transaction: PostgresQueueTransaction) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  const holding = holdClient(client);
  const { db, deferring, deferred } = holding;
  deferred.length = 0;
  let opening: Promise<Opening> | undefined;
  const open = (deliveries: readonly DeliveryRecord[]) => {
    if (opening !== undefined) return undefined;
    holding.unopened = undefined;
    opening = (
      client.query(openingSql(db, queueId, deliveries)) as unknown as Promise<pg.QueryResult[]>
    ).then((results) => ({
      located: results.at(-1)!.rows[0] as LocatedVersion | undefined,
      recorded: new Set(deliveries.length === 0 ? [] : results[2]!.rows.map((row: { id: string }) => row.id)),
    }));
    return opening;
  };
  holding.unopened = () => open([]) ?? Promise.resolve();
  try {
    const result = await work({ trx: db, atCommit: deferring, open });
    if (opening === undefined && deferred.length > 0) await open([]);
    if (opening !== undefined) await client.query([...deferred, "commit"].join(";\n"));
    client.release();
    return result;
  } catch (error) {
    // A client whose rollback fails (its connection gone) is not given to the next user: the pool drops it.
    const broken =
      opening === undefined
        ? undefined
        : await client.query("rollback").then(
            () => undefined,
            (failed: Error) => failed,
          );
    client.release(broken);
    throw error;
  } finally {
    deferred.length = 0;
    holding.unopened = undefined;
  }
}
