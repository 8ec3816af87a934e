// The hottest queries (those every API request and every CI webhook runs), built by Kysely once per database
// instead of once per call. Building a query (Kysely's immutable operation nodes, then the SQL text) took longer
// than SQLite took to run it: about a fifth of a cached read's time. A transaction shares its database's dialect
// adapter, so a query compiled for the database serves every transaction on it too.
import {
  type Compilable,
  type CompiledQuery,
  type DialectAdapter,
  type Kysely,
  type RawBuilder,
  sql,
} from "kysely";
import type { Connection, Dialect } from "./connection.ts";
import type { Database } from "./schema.ts";

/**
 * The query `build` makes, compiled on first use with each database, then run with the arguments of each call.
 * `build` receives markers in the arguments' places and must pass them to Kysely as they are, so that each lands in
 * the compiled parameters. Only for queries whose SQL does not depend on their arguments' values: for an `in` list,
 * whose SQL would grow with the list, use `preparedListQuery`.
 */
export function preparedQuery<Args extends readonly unknown[], Row>(
  build: (db: Kysely<Database>, ...args: Args) => Compilable<Row>,
): (db: Kysely<Database>, ...args: Args) => Promise<Row[]> {
  const compiled = new WeakMap<DialectAdapter, { query: CompiledQuery<Row>; places: number[] }>();
  return async (db, ...args) => {
    const { adapter } = db.getExecutor();
    let prepared = compiled.get(adapter);
    if (prepared === undefined) {
      prepared = compile(db, build, args.length);
      compiled.set(adapter, prepared);
    }
    const { query, places } = prepared;
    const parameters = query.parameters.map((constant, index) => {
      const place = places[index]!;
      return place < 0 ? constant : args[place];
    });
    return (await db.executeQuery<Row>({ ...query, parameters })).rows;
  };
}

/**
 * `preparedQuery` for a query over one record's fields (a row to insert or update): `build` receives the record
 * with a marker in each field's place, and each call gives the record. The fields are those of the first call's
 * record; each must land in the query as a parameter.
 */
export function preparedRecordQuery<Fields extends object, Row>(
  build: (db: Kysely<Database>, record: Fields) => Compilable<Row>,
): (db: Kysely<Database>, record: Fields) => Promise<Row[]> {
  let fields: (keyof Fields)[] | undefined;
  const query = preparedQuery((db, ...values: unknown[]) =>
    build(db, Object.fromEntries(fields!.map((field, index) => [field, values[index]])) as Fields),
  );
  return (db, record) => {
    fields ??= Object.keys(record) as (keyof Fields)[];
    return query(db, ...fields.map((field) => record[field]));
  };
}

function compile<Args extends readonly unknown[], Row>(
  db: Kysely<Database>,
  build: (db: Kysely<Database>, ...args: Args) => Compilable<Row>,
  arity: number,
): { query: CompiledQuery<Row>; places: number[] } {
  // Objects, not values: no argument can be mistaken for one, and a builder that calls a method on an argument
  // fails at once.
  const markers = Array.from({ length: arity }, () => ({}));
  const query = build(db, ...(markers as unknown as Args)).compile();
  const places = query.parameters.map((parameter) => markers.indexOf(parameter as object));
  for (let place = 0; place < arity; place++) {
    if (!places.includes(place)) throw new Error(`argument ${place} of a prepared query is not a parameter`);
  }
  return { query, places };
}

/**
 * A prepared query over a list of strings, which `build` places where a subquery goes (`column in list`): the list
 * is one parameter, an array on PostgreSQL and JSON on SQLite, so the SQL is the same for every length.
 */
export function preparedListQuery<Row>(
  build: (db: Kysely<Database>, list: RawBuilder<string>) => Compilable<Row>,
): (connection: Connection, list: readonly string[]) => Promise<Row[]> {
  const onEach: Record<Dialect, (db: Kysely<Database>, list: unknown) => Promise<Row[]>> = {
    postgres: preparedQuery((db, list: unknown) => build(db, sql<string>`(select unnest(${list}::text[]))`)),
    sqlite: preparedQuery((db, list: unknown) =>
      build(db, sql<string>`(select value from json_each(${list}))`),
    ),
  };
  return ({ db, dialect }, list) => onEach[dialect](db, dialect === "postgres" ? list : JSON.stringify(list));
}
