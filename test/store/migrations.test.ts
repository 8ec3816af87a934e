import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Kysely, sql } from "kysely";
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

  it.runIf(dialect === "postgres")(
    "compresses the values rewritten at every queue step with lz4",
    async () => {
      const { rows } = await sql<{ column: string; method: string }>`
      select attrelid::regclass || '.' || attname as column, attcompression as method from pg_attribute
      where (attrelid::regclass::text, attname::text) in
        (('queue_states', 'state'), ('test_runs', 'record'), ('pull_request_submissions', 'record'))
      order by 1`.execute(store.db);
      expect(rows).toEqual([
        { column: "pull_request_submissions.record", method: "l" },
        { column: "queue_states.state", method: "l" },
        { column: "test_runs.record", method: "l" },
      ]);
    },
  );
});
