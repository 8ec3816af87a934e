// A query prepared once answers each call with that call's arguments, as the same query built for the call would,
// on each database and inside a transaction (built once for both); a builder that does not pass its arguments to
// Kysely is refused. A record query takes its fields by name.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { preparedQuery, preparedRecordQuery } from "../../src/store/prepared-query.ts";
import { rememberRepository } from "../../src/store/repositories.ts";
import { createTestStore, type TestStore, testDialects } from "../support/database.ts";

const repositoriesOf = preparedQuery((db, host: string, ownerKey: string) =>
  db
    .selectFrom("repositories")
    .select(["name", "installation_id as installationId"])
    .where("host", "=", host)
    .where("owner_key", "=", ownerKey)
    .where("installation_id", "is not", null)
    .orderBy("name"),
);

describe.each(testDialects)("prepared queries on %s", (dialect) => {
  let store: TestStore;
  beforeEach(async () => {
    store = await createTestStore(dialect);
    for (const [owner, name, installationId] of [
      ["acme", "widgets", 1],
      ["acme", "gadgets", 2],
      ["globex", "rockets", 3],
    ] as const) {
      await rememberRepository(store.db, { host: "github.com", owner, name, installationId }, 1);
    }
  });
  afterEach(async () => {
    await store.destroy();
  });

  it("answers each call with its own arguments", async () => {
    expect(await repositoriesOf(store.db, "github.com", "acme")).toEqual([
      { name: "gadgets", installationId: 2 },
      { name: "widgets", installationId: 1 },
    ]);
    expect(await repositoriesOf(store.db, "github.com", "globex")).toEqual([
      { name: "rockets", installationId: 3 },
    ]);
    expect(await repositoriesOf(store.db, "ghe.example.com", "acme")).toEqual([]);
  });

  it("reads what a transaction wrote before it committed", async () => {
    await store.db.transaction().execute(async (trx) => {
      await rememberRepository(
        trx,
        { host: "github.com", owner: "globex", name: "lasers", installationId: 4 },
        2,
      );
      expect(await repositoriesOf(trx, "github.com", "globex")).toHaveLength(2);
    });
  });

  it("is built once per database, an argument used twice taking both places", async () => {
    let builds = 0;
    const named = preparedQuery((db, name: string) => {
      builds++;
      return db
        .selectFrom("repositories")
        .select("name")
        .where((eb) => eb.or([eb("name_key", "=", name), eb("owner_key", "=", name)]));
    });
    expect(await named(store.db, "widgets")).toEqual([{ name: "widgets" }]);
    expect(await named(store.db, "globex")).toEqual([{ name: "rockets" }]);
    expect(builds).toBe(1);
  });

  it("is built once for a database and every transaction on it", async () => {
    let builds = 0;
    const named = preparedQuery((db, name: string) => {
      builds++;
      return db.selectFrom("repositories").select("name").where("name_key", "=", name);
    });
    expect(await named(store.db, "widgets")).toEqual([{ name: "widgets" }]);
    for (const name of ["gadgets", "rockets"]) {
      await store.db.transaction().execute(async (trx) => {
        expect(await named(trx, name)).toEqual([{ name }]);
      });
    }
    expect(builds).toBe(1);
  });

  it("takes a record's fields by name, whatever their order in later calls, and writes within the transaction", async () => {
    const rename = preparedRecordQuery(
      (db, { name, installation_id }: { name: string; installation_id: number }) =>
        db.updateTable("repositories").set({ name }).where("installation_id", "=", installation_id),
    );
    await rename(store.db, { name: "zeppelins", installation_id: 1 });
    await store.db
      .transaction()
      .execute(async (trx) => {
        await rename(trx, { installation_id: 3, name: "lasers" });
        expect(await repositoriesOf(trx, "github.com", "globex")).toEqual([
          { name: "lasers", installationId: 3 },
        ]);
        throw new Error("rolled back");
      })
      .catch(() => undefined);
    expect(await repositoriesOf(store.db, "github.com", "acme")).toEqual([
      { name: "gadgets", installationId: 2 },
      { name: "zeppelins", installationId: 1 },
    ]);
    expect(await repositoriesOf(store.db, "github.com", "globex")).toEqual([
      { name: "rockets", installationId: 3 },
    ]);
  });

  it("refuses a record query that leaves a field out of the query", async () => {
    const partial = preparedRecordQuery((db, { name }: { name: string; unused: number }) =>
      db.selectFrom("repositories").select("name").where("name_key", "=", name),
    );
    await expect(partial(store.db, { name: "widgets", unused: 1 })).rejects.toThrow(
      "argument 1 of a prepared query is not a parameter",
    );
  });

  it("refuses a builder that does not pass an argument on to Kysely as it is", async () => {
    const constant = preparedQuery((db, _owner: string) =>
      db.selectFrom("repositories").select("name").where("owner_key", "=", "acme"),
    );
    await expect(constant(store.db, "globex")).rejects.toThrow(
      "argument 0 of a prepared query is not a parameter",
    );
    const lowered = preparedQuery((db, owner: string) =>
      db.selectFrom("repositories").select("name").where("owner_key", "=", owner.toLowerCase()),
    );
    await expect(lowered(store.db, "Acme")).rejects.toThrow(TypeError);
  });
});
