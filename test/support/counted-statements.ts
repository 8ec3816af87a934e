// A database handle that counts the statements sent through it (prepared queries run with `executeQuery`, as
// every Kysely query does in the end), for tests of how many round trips a path costs.
import type { Kysely } from "kysely";
import type { Database } from "../../src/store/schema.ts";

/** `db`, counting in `counter.statements` the statements whose SQL `counts` accepts (every one by default). */
export function countedStatements(
  db: Kysely<Database>,
  counts: (sql: string) => boolean = () => true,
): { db: Kysely<Database>; counter: { statements: number } } {
  const counter = { statements: 0 };
  const proxy = new Proxy(db, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property !== "executeQuery") return typeof value === "function" ? value.bind(target) : value;
      return (query: { sql: string }) => {
        if (counts(query.sql)) counter.statements++;
        return target.executeQuery(query as never);
      };
    },
  });
  return { db: proxy, counter };
}
