// On PostgreSQL, the values rewritten whole at every queue step (the state's JSON, the records of its runs and
// submissions) are compressed with lz4 rather than pglz once they pass TOAST's threshold (2 KiB): updating a
// 27 KiB state took twice the server's CPU with pglz, for about the same size stored. Values keep the method they
// were written with until their next write. A server built without lz4 keeps pglz; SQLite has no such setting.
import { type Kysely, PostgresAdapter, sql } from "kysely";

const rewrittenEachStep = [
  ["queue_states", "state"],
  ["test_runs", "record"],
  ["pull_request_submissions", "record"],
] as const;

async function setCompression(db: Kysely<unknown>, method: "lz4" | "default"): Promise<void> {
  for (const [table, column] of rewrittenEachStep) {
    await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)} set compression ${sql.raw(method)}`.execute(
      db,
    );
  }
}

/** Whether the server can compress with lz4: it lists lz4 among the setting's values only then (PostgreSQL 14+). */
async function hasLz4(db: Kysely<unknown>): Promise<boolean> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return false;
  const { rows } = await sql<{ lz4: boolean }>`
    select 'lz4' = any(enumvals) as lz4 from pg_settings where name = 'default_toast_compression'`.execute(
    db,
  );
  return rows[0]?.lz4 === true;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  if (await hasLz4(db)) await setCompression(db, "lz4");
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (await hasLz4(db)) await setCompression(db, "default");
}
