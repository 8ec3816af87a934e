// The database connection every store module works on.
import type { Kysely } from "kysely";
import type * as pg from "pg";
import type { Database } from "./schema.ts";

export type Dialect = "sqlite" | "postgres";

export interface Connection {
  db: Kysely<Database>;
  dialect: Dialect;
  /** On PostgreSQL, the driver's pool under `db`: for what Kysely cannot send (several statements in one round trip). */
  pool?: pg.Pool;
}
