// Store tests run on every dialect: SQLite always, PostgreSQL when TEST_DATABASE_URL is set (.ci/run sets it).
// Each test store is private: a fresh SQLite file, or a fresh PostgreSQL schema. The schemas are dropped by
// the global teardown, not one by one: Kysely's migrator introspects every schema, and a schema dropped by
// another worker in the middle of that fails the introspection.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { type Dialect, openMigratedDatabase, type Store } from "../../src/store/database.ts";

export const testSchemaPrefix = "switchyard_test_";

export const testDialects: Dialect[] = process.env.TEST_DATABASE_URL ? ["sqlite", "postgres"] : ["sqlite"];

export interface TestStore extends Store {
  databaseUrl: string;
  destroy(): Promise<void>;
}

export async function createTestStore(dialect: Dialect): Promise<TestStore> {
  if (dialect === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "switchyard-test-"));
    const databaseUrl = `file:${join(dir, "test.db")}`;
    const store = await openMigratedDatabase(databaseUrl);
    return {
      ...store,
      databaseUrl,
      destroy: async () => {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const baseUrl = process.env.TEST_DATABASE_URL as string;
  const schema = `${testSchemaPrefix}${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const url = new URL(baseUrl);
  url.searchParams.set("options", `-c search_path=${schema}`);
  const databaseUrl = url.toString();
  const store = await openMigratedDatabase(databaseUrl);
  return {
    ...store,
    databaseUrl,
    destroy: () => store.close(),
  };
}

/** Drops every test schema; run once after all test files. */
export async function dropTestSchemas(baseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  const { rows } = await client.query<{ name: string }>(
    "select nspname as name from pg_namespace where nspname like $1",
    [`${testSchemaPrefix}%`],
  );
  for (const { name } of rows) await client.query(`DROP SCHEMA "${name}" CASCADE`);
  await client.end();
}
