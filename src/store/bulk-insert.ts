// Multi-row inserts for ingestion (contract 7.1 at 100,000 results per second): the statement text for a table,
// column list and row count is built once and reused, and rows go in as flat parameter arrays, so no query builder
// runs per row.
import { CompiledQuery, type Kysely } from "kysely";
import type { Dialect } from "./database.ts";

// Each statement stays under both dialects' limits on parameters (SQLite 32,766, PostgreSQL 65,535) and is large
// enough that its fixed cost is spread over hundreds of rows.
const MAX_PARAMETERS_PER_STATEMENT = 8000;

const statements = new Map<string, string>();

const rowsPerStatement = (columns: readonly string[]) =>
  Math.max(1, Math.floor(MAX_PARAMETERS_PER_STATEMENT / columns.length));

function statementText(
  dialect: Dialect,
  table: string,
  columns: readonly string[],
  rowCount: number,
  suffix: string,
): string {
  // Only full-size statements are kept: a batch's last, shorter statement would make the cache grow with each size.
  const cacheable = rowCount === rowsPerStatement(columns);
  const key = `${dialect}\u0000${table}\u0000${columns.join(",")}\u0000${suffix}`;
  let text = cacheable ? statements.get(key) : undefined;
  if (text === undefined) {
    let parameter = 0;
    const placeholder = dialect === "postgres" ? () => `$${++parameter}` : () => "?";
    const tuples: string[] = [];
    for (let row = 0; row < rowCount; row++) tuples.push(`(${columns.map(placeholder).join(",")})`);
    const names = columns.map((column) => `"${column}"`).join(",");
    // A multi-row insert that may abort halfway makes SQLite copy each page it changes to a statement journal
    // first, so that it can undo the statement's earlier rows: for rows scattered across an index that doubled the
    // cost of the insert. OR FAIL keeps those rows instead, which changes nothing here: every caller inserts inside
    // a transaction that an error rolls back whole.
    const verb = dialect === "sqlite" ? "insert or fail" : "insert";
    text = `${verb} into "${table}" (${names}) values ${tuples.join(",")}${suffix === "" ? "" : ` ${suffix}`}`;
    if (cacheable) statements.set(key, text);
  }
  return text;
}

/**
 * Inserts `rows` (each a value per column, in `columns` order) with as few statements as the parameter limit
 * allows, inside the caller's transaction, which must be rolled back if this throws (a failed statement may leave
 * some of its rows). `suffix` ends each statement (an ON CONFLICT or RETURNING clause); the
 * rows a RETURNING clause gives are returned.
 */
export async function insertRows<DB, Returned = never>(
  db: Kysely<DB>,
  dialect: Dialect,
  table: string,
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
  suffix = "",
): Promise<Returned[]> {
  const values: unknown[] = [];
  for (const row of rows) for (const value of row) values.push(value);
  return insertValues(db, dialect, table, columns, values, suffix);
}

/**
 * {@link insertRows} with the rows' values one after the other in one array, as ingestion builds them: no array
 * per row to allocate and collect.
 */
export async function insertValues<DB, Returned = never>(
  db: Kysely<DB>,
  dialect: Dialect,
  table: string,
  columns: readonly string[],
  values: readonly unknown[],
  suffix = "",
): Promise<Returned[]> {
  const returned: Returned[] = [];
  const rowCount = values.length / columns.length;
  const size = rowsPerStatement(columns);
  for (let start = 0; start < rowCount; start += size) {
    const rows = Math.min(size, rowCount - start);
    const parameters =
      rows === rowCount ? values : values.slice(start * columns.length, (start + rows) * columns.length);
    const result = await db.executeQuery<Returned>(
      CompiledQuery.raw(statementText(dialect, table, columns, rows, suffix), parameters as unknown[]),
    );
    for (const row of result.rows) returned.push(row);
  }
  return returned;
}
