import { afterEach, describe, expect, it } from "vitest";
import { compiledOnce } from "../../src/store/compiled-once.ts";
import { rememberRepository } from "../../src/store/repositories.ts";
import { createTestStore, type TestStore, testDialects } from "../support/database.ts";

const stores: TestStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.destroy()));
});

describe.each(testDialects)("a query compiled once on %s", (dialect) => {
  it("is built once per database and answers each call for its own arguments", async () => {
    const store = await createTestStore(dialect);
    stores.push(store);
    for (const name of ["widgets", "gadgets"]) {
      await rememberRepository(store.db, { host: "github.com", owner: "acme", name, installationId: 7 }, 0);
    }
    let builds = 0;
    const named = compiledOnce((db, owner: string, name: string) => {
      builds++;
      return db
        .selectFrom("repositories")
        .select("name")
        .where("owner_key", "=", owner)
        .where("host", "=", "github.com")
        .where("name_key", "=", name);
    }, 2);

    expect(await named(store.db, "acme", "widgets")).toEqual([{ name: "widgets" }]);
    expect(await named(store.db, "acme", "gadgets")).toEqual([{ name: "gadgets" }]);
    expect(await named(store.db, "other", "gadgets")).toEqual([]);
    expect(builds).toBe(1);
  });
});
