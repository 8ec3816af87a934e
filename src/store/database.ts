// Opens the database named by DATABASE_URL: SQLite for zero set-up, PostgreSQL for several replicas.
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import type * as pgModule from "pg";
import type { QueueStorage } from "../ports/queue-persistence.ts";
import type { TestHealthStorage } from "../ports/test-health-persistence.ts";
import type { Connection, Dialect } from "./connection.ts";
import { markContent, watchSqliteContent } from "./content-mark.ts";
import { migrateToLatest } from "./migrations.ts";
import { type QueueStateReads, queueStorage } from "./queue-storage.ts";
import type { Database } from "./schema.ts";
import { withStatementCache } from "./statement-cache.ts";
import { testHealthStorage } from "./test-health-storage.ts";

export type { Dialect } from "./connection.ts";

/** The database, and on it the storage the use cases need (their ports). */
export interface Store extends Connection, QueueStorage, QueueStateReads, TestHealthStorage {
  close(): Promise<void>;
}

function storeOn(connection: Connection): Store {
  return {
    ...connection,
    ...queueStorage(connection),
    ...testHealthStorage(connection),
    close: () => connection.db.destroy(),
  };
}

/** The PostgreSQL driver, loaded only by a process that uses PostgreSQL (it is a start-up cost on SQLite). */
function postgresDriver(): typeof pgModule {
  const pg = createRequire(import.meta.url)("pg") as typeof pgModule;
  // int8 (bigint, count(*)) comes back from pg as a string; our bigints are epoch milliseconds and counts,
  // far below 2^53, so numbers are exact and match what SQLite returns.
  pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
  return pg;
}

export function dialectOf(databaseUrl: string): Dialect {
  return databaseUrl.startsWith("file:") ? "sqlite" : "postgres";
}

export function sqlitePath(databaseUrl: string): string {
  const path = databaseUrl.slice("file:".length);
  return path === ":memory:" ? path : resolve(path);
}

/** The bound of SQLite's page cache (per connection). */
const sqlitePageCacheKiB = 16 * 1024;

export function openDatabase(databaseUrl: string): Store {
  const dialect = dialectOf(databaseUrl);
  if (dialect === "sqlite") {
    const path = sqlitePath(databaseUrl);
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    const sqlite = new SQLite(path);
    // WAL lets readers run beside the one writer; the busy timeout makes a second process wait instead of failing.
    sqlite.pragma("journal_mode = WAL");
    sqlite.pragma("busy_timeout = 5000");
    sqlite.pragma("foreign_keys = ON");
    sqlite.pragma("synchronous = NORMAL");
    // 16 MiB of page cache instead of 2: test results run to millions of rows, and with the default every insert
    // into their indexes misses the cache and spills pages mid-transaction. Not more: the cache keeps every page
    // written until it is full, so under webhook load (delivery records) or an upload the process grows by its whole
    // size; 64 MiB ingested 150,000 results in no less CPU time than 8, 16 or 32 did.
    sqlite.pragma(`cache_size = -${sqlitePageCacheKiB}`);
    const content = watchSqliteContent(sqlite);
    const database = withStatementCache(sqlite, content.wrote);
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
    markContent(db, content.mark);
    return storeOn({ db, dialect });
  }
  const pool = new (postgresDriver().Pool)({ connectionString: databaseUrl, max: 10 });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return storeOn({ db, dialect });
}

/** Opens the database and applies pending migrations, as the server and `switchyard migrate` do. */
export async function openMigratedDatabase(databaseUrl: string): Promise<Store> {
  const store = openDatabase(databaseUrl);
  try {
    await migrateToLatest(store.db as Kysely<unknown>, store.dialect);
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}
