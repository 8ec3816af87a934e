// The database connection every store module works on.
import type { Kysely } from "kysely";
import type { Database } from "./schema.ts";

export type Dialect = "sqlite" | "postgres";

export interface Connection {
  db: Kysely<Database>;
  dialect: Dialect;
}
