/** A boolean column: 0 or 1 on SQLite and PostgreSQL alike. */
export type Flag = 0 | 1;
