// SQLite's page cache keeps every page read or written until it reaches its bound: the bound is what a busy
// service's SQLite takes (a webhook soak grew by the whole cache as delivery records filled the database).
import { sql } from "kysely";
import { expect, it } from "vitest";
import { createTestStore } from "../support/database.ts";

it("bounds SQLite's page cache at 16 MiB", async () => {
  const store = await createTestStore("sqlite");
  try {
    const { rows } = await sql<{ cache_size: number }>`pragma cache_size`.execute(store.db);
    // Negative: KiB rather than pages.
    expect(rows[0]!.cache_size).toBe(-16 * 1024);
  } finally {
    await store.destroy();
  }
});
