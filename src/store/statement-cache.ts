// Prepared statements that are prepared once. better-sqlite3 prepares each SQL text Kysely runs, and preparing costs
// as much as running a small query; ingestion runs the same multi-row inserts hundreds of times per upload
// (docs/performance.md#test-health). Kysely needs only `prepare` and `close` of the database, so the
// cache sits between them. Every statement passes here, so this is also where a statement that writes tells the
// connection's content mark (content-mark.ts).
import type BetterSqlite3 from "better-sqlite3";
import type { SqliteDatabase, SqliteStatement } from "kysely";

/**
 * The SQL text the cached statements may add up to, least recently used dropped first. A prepared statement takes
 * memory in proportion to its text, and a multi-row insert's text runs to tens of kilobytes: a count of statements
 * would not bound the memory.
 */
const CAPACITY_CHARS = 1024 * 1024;

export function withStatementCache(
  database: BetterSqlite3.Database,
  wrote: () => void = () => undefined,
): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  let cachedChars = 0;
  return {
    close: () => database.close(),
    prepare(sql) {
      let statement = statements.get(sql);
      if (statement !== undefined) {
        statements.delete(sql);
        statements.set(sql, statement);
        return statement;
      }
      statement = noticingWrites(database.prepare(sql), wrote);
      if (sql.length > CAPACITY_CHARS / 4) return statement;
      statements.set(sql, statement);
      cachedChars += sql.length;
      for (const oldest of statements.keys()) {
        if (cachedChars <= CAPACITY_CHARS) break;
        statements.delete(oldest);
        cachedChars -= oldest.length;
      }
      return statement;
    },
  };
}

/** `statement`, calling `wrote` after each run if it may write (an insert, update or delete, with RETURNING or not). */
function noticingWrites(statement: BetterSqlite3.Statement, wrote: () => void): SqliteStatement {
  if (statement.readonly) return statement;
  return {
    reader: statement.reader,
    all: (parameters) => {
      try {
        return statement.all(parameters);
      } finally {
        wrote();
      }
    },
    run: (parameters) => {
      try {
        return statement.run(parameters);
      } finally {
        wrote();
      }
    },
    iterate: (parameters) => {
      wrote();
      return statement.iterate(parameters);
    },
  };
}
