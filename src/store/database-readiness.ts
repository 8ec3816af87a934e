// Whether this replica can serve: the database answers and holds every migration this build expects.
import { type Kysely, sql } from "kysely";
import { latestMigration } from "./migrations.ts";
import type { Database } from "./schema.ts";

export type Readiness =
  | { ready: true; migration: string }
  | { ready: false; reason: "database_unreachable"; error: unknown }
  | { ready: false; reason: "migrations_pending"; migration: string };

/** Rejects when `work` takes longer than `timeoutMs`, so a probe gets an answer before its own timeout. */
async function within<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the database did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export async function checkReadiness(db: Kysely<Database>, timeoutMs: number): Promise<Readiness> {
  try {
    await within(sql`select 1`.execute(db), timeoutMs);
    const applied = await within(
      db
        .selectFrom("kysely_migration")
        .select("name")
        .where("name", "=", latestMigration)
        .executeTakeFirst()
        // A database never migrated has no bookkeeping table at all: its migrations are pending too.
        .catch(() => undefined),
      timeoutMs,
    );
    return applied === undefined
      ? { ready: false, reason: "migrations_pending", migration: latestMigration }
      : { ready: true, migration: latestMigration };
  } catch (error) {
    return { ready: false, reason: "database_unreachable", error };
  }
}
