// Multi-row inserts for ingestion (docs/performance.md#test-health): the statement text for a table,
// column list and row count is built once and reused, and rows go in as flat parameter arrays, so no query builder
// runs per row.
import { CompiledQuery, type Kysely } from "kysely";
import type { Dialect } from "./connection.ts";

// Each statement stays under both dialects' limits on parameters (SQLite 32,766, PostgreSQL 65,535) and is large
// enough that its fixed cost is spread over hundreds of rows.
const MAX_PARAMETERS_PER_STATEMENT = 8000;

/** Columns whose value is the same in every row of an insert, and those values. */
export interface SharedValues {
  columns: readonly string[];
  values: readonly unknown[];
}

const noSharedValues: SharedValues = { columns: [], values: [] };

const statements = new Map<string, string>();

const rowsPerStatement = (columns: readonly string[]) =>
  Math.max(1, Math.floor(MAX_PARAMETERS_PER_STATEMENT / columns.length));

const quoted = (columns: readonly string[]) => columns.map((column) => `"${column}"`).join(",");

function statementText(
  dialect: Dialect,
  table: string,
  columns: readonly string[],
  shared: readonly string[],
  rowCount: number,
  suffix: string,
): string {
  // Only full-size statements are kept: a batch's last, shorter statement would make the cache grow with each size.
  const cacheable = rowCount === rowsPerStatement(columns);
  const key = `${dialect}\u0000${table}\u0000${columns.join(",")}\u0000${shared.join(",")}\u0000${suffix}`;
  let text = cacheable ? statements.get(key) : undefined;
  if (text === undefined) {
    const tuple = `(${columns.map(() => "?").join(",")})`;
    const tuples = Array.from({ length: rowCount }, () => tuple).join(",");
    // A multi-row insert that may abort halfway makes SQLite copy each page it changes to a statement journal
    // first, so that it can undo the statement's earlier rows: for rows scattered across an index that doubled the
    // cost of the insert. OR FAIL keeps those rows instead, which changes nothing here: every caller inserts inside
    // a transaction that an error rolls back whole.
    const verb = dialect === "sqlite" ? "insert or fail" : "insert";
    const names = quoted([...columns, ...shared]);
    // Shared values are bound once per statement, the rows' own values read from a VALUES list: binding a value
    // costs about as much as storing it. SQLite numbers `?` in the order of the text, so the shared ones come first;
    // an upsert on INSERT … SELECT needs a WHERE clause, lest its ON be read as a join's.
    const body =
      shared.length === 0
        ? `values ${tuples}`
        : `select ${shared.map(() => "?").join(",")}, ${columns.map((_, index) => `column${index + 1}`).join(",")} from (values ${tuples}) where true`;
    const sharedFirst = shared.length === 0 ? names : quoted([...shared, ...columns]);
    text = `${verb} into "${table}" (${sharedFirst}) ${body}${suffix === "" ? "" : ` ${suffix}`}`;
    if (dialect === "postgres") {
      let parameter = 0;
      text = text.replace(/\?/g, () => `$${++parameter}`);
    }
    if (cacheable) statements.set(key, text);
  }
  return text;
}

/**
 * Inserts rows given as their values one after the other in one array (a value per column, in `columns` order),
 * with as few statements as the parameter limit allows, inside the caller's transaction, which must be rolled back
 * if this throws (a failed statement may leave some of its rows). `shared` gives columns with one value for every
 * row; `suffix` ends each statement (an ON CONFLICT clause). Returns how many rows were inserted or updated.
 */
export async function insertValues<DB>(
  db: Kysely<DB>,
  dialect: Dialect,
  table: string,
  columns: readonly string[],
  values: readonly unknown[],
  { shared = noSharedValues, suffix = "" }: { shared?: SharedValues; suffix?: string } = {},
): Promise<number> {
  // PostgreSQL would type a VALUES list's parameters as text, which no integer column accepts: there each row
  // carries the shared values itself.
  if (dialect === "postgres" && shared.columns.length > 0) {
    return insertValues(
      db,
      dialect,
      table,
      [...columns, ...shared.columns],
      withShared(values, columns, shared),
      {
        suffix,
      },
    );
  }
  let affected = 0;
  const rowCount = values.length / columns.length;
  const size = rowsPerStatement(columns);
  for (let start = 0; start < rowCount; start += size) {
    const rows = Math.min(size, rowCount - start);
    const own =
      rows === rowCount ? values : values.slice(start * columns.length, (start + rows) * columns.length);
    const parameters = shared.values.length === 0 ? own : [...shared.values, ...own];
    const result = await db.executeQuery(
      CompiledQuery.raw(
        statementText(dialect, table, columns, shared.columns, rows, suffix),
        parameters as unknown[],
      ),
    );
    affected += Number(result.numAffectedRows ?? 0);
  }
  return affected;
}

/** {@link insertValues} with each row's values in an array of its own. */
export async function insertRows<DB>(
  db: Kysely<DB>,
  dialect: Dialect,
  table: string,
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
): Promise<number> {
  return insertValues(db, dialect, table, columns, rows.flat());
}

function withShared(values: readonly unknown[], columns: readonly string[], shared: SharedValues): unknown[] {
  const expanded: unknown[] = [];
  for (let start = 0; start < values.length; start += columns.length) {
    for (let index = start; index < start + columns.length; index++) expanded.push(values[index]);
    for (const value of shared.values) expanded.push(value);
  }
  return expanded;
}
