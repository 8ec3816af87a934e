import SQLite from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { withStatementCache } from "../../src/store/statement-cache.ts";

describe("the prepared statement cache", () => {
  let sqlite: SQLite.Database;
  beforeEach(() => {
    sqlite = new SQLite(":memory:");
  });
  afterEach(() => sqlite.close());

  it("prepares a text once and hands the same statement back", () => {
    const database = withStatementCache(sqlite);
    const first = database.prepare("select 1 as one");
    expect(database.prepare("select 1 as one")).toBe(first);
    expect(first.all([])).toEqual([{ one: 1 }]);
  });

  it("keeps at most a mebibyte of SQL, dropping the least recently used first", () => {
    const database = withStatementCache(sqlite);
    // Each text is about 200 KiB: five fit in the budget.
    const text = (n: number) => `select ${n} as n${" ".repeat(200 * 1024)}`;
    const statements = [0, 1, 2, 3, 4].map((n) => database.prepare(text(n)));
    expect(database.prepare(text(0))).toBe(statements[0]);
    database.prepare(text(5));
    expect(database.prepare(text(0))).toBe(statements[0]);
    expect(database.prepare(text(1))).not.toBe(statements[1]);
  });

  it("does not keep a statement too large to be worth it", () => {
    const database = withStatementCache(sqlite);
    const huge = `select 1 as one${" ".repeat(300 * 1024)}`;
    expect(database.prepare(huge)).not.toBe(database.prepare(huge));
  });
});
