// Store tests run on every dialect: SQLite always, PostgreSQL when TEST_DATABASE_URL is set (.ci/run sets it).
// Each test store is private: a fresh SQLite file, or a fresh PostgreSQL schema dropped afterwards.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { type Dialect, openMigratedDatabase, type Store } from "../../src/store/database.ts";

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
  const schema = `test_${randomBytes(6).toString("hex")}`;
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
    destroy: async () => {
      await store.close();
      const cleanup = new pg.Client({ connectionString: baseUrl });
      await cleanup.connect();
      await cleanup.query(`DROP SCHEMA ${schema} CASCADE`);
      await cleanup.end();
    },
  };
}
