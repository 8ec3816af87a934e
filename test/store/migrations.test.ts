import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Kysely } from "kysely";
import { latestMigration, migrateToLatest } from "../../src/store/migrations.ts";
import { createTestStore, type TestStore, testDialects } from "../support/database.ts";

describe.each(testDialects)("migrations on %s", (dialect) => {
  let store: TestStore;
  beforeEach(async () => {
    store = await createTestStore(dialect);
  });
  afterEach(async () => {
    await store.destroy();
  });

  it("records every migration once and applying them again changes nothing", async () => {
    const applied = await store.db.selectFrom("kysely_migration").select("name").execute();
    expect(applied.map((m) => m.name).at(-1)).toBe(latestMigration);
    expect(await migrateToLatest(store.db as Kysely<unknown>, dialect)).toEqual([]);
  });
});
