import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase, type Store } from "../../src/store/database.ts";
import { serviceSecret } from "../../src/store/service-secrets.ts";
import { createTestStore, type TestStore, testDialects } from "../support/database.ts";

describe.each(testDialects)("service secrets on %s", (dialect) => {
  let store: TestStore;
  let replica: Store;
  beforeEach(async () => {
    store = await createTestStore(dialect);
    replica = openDatabase(store.databaseUrl);
  });
  afterEach(async () => {
    await replica.close();
    await store.destroy();
  });

  it("creates a secret newer than the database once, on first use, and every replica reads the same", async () => {
    const [mine, theirs] = await Promise.all([
      serviceSecret(store.db, "browser_sessions"),
      serviceSecret(replica.db, "browser_sessions"),
    ]);
    expect(mine).toHaveLength(32);
    expect(theirs.equals(mine)).toBe(true);
    const rows = await store.db.selectFrom("service_secrets").select("name").orderBy("name").execute();
    expect(rows.map((row) => row.name)).toEqual(["browser_sessions", "page_tokens"]);
    const pageTokens = await serviceSecret(replica.db, "page_tokens");
    expect(pageTokens.equals(mine)).toBe(false);
  });
});
