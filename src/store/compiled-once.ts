// Queries built once. Kysely builds and compiles a query's SQL on every call, which on SQLite costs more than running
// a small query; the hottest ones (one per CI webhook) are built once per database and then only given their
// parameters, as a prepared statement is.
import type { Compilable, CompiledQuery, Kysely } from "kysely";
import type { Database } from "./schema.ts";

/**
 * `build` with its arguments stood in for by markers, compiled once per database; each call replaces the markers in
 * the parameters by its own arguments. Only for queries whose SQL does not depend on their arguments' values: one
 * with an `in` list, whose SQL grows with the list, would go wrong.
 */
export function compiledOnce<Args extends readonly unknown[], Row>(
  build: (db: Kysely<Database>, ...args: Args) => Compilable<Row>,
  arity: Args["length"],
): (db: Kysely<Database>, ...args: Args) => Promise<Row[]> {
  const markers = Array.from({ length: arity }, () => ({}));
  const compiled = new WeakMap<Kysely<Database>, CompiledQuery<Row>>();
  return async (db, ...args) => {
    let query = compiled.get(db);
    if (query === undefined) {
      query = build(db, ...(markers as unknown as Args)).compile();
      compiled.set(db, query);
    }
    const parameters = query.parameters.map((parameter) => {
      const index = markers.indexOf(parameter as object);
      return index < 0 ? parameter : args[index];
    });
    return (await db.executeQuery<Row>({ ...query, parameters })).rows;
  };
}
