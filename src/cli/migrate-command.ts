import type { Command } from "commander";
import type { Kysely } from "kysely";
import { openDatabase } from "../store/database.ts";
import { migrateToLatest } from "../store/migrations.ts";
import type { CliContext } from "./io.ts";

export function registerMigrateCommand(program: Command, context: CliContext): void {
  program
    .command("migrate")
    .description("apply pending database migrations (the server also applies them when it starts)")
    .action(async () => {
      const store = openDatabase(context.config().databaseUrl);
      try {
        const applied = await migrateToLatest(store.db as Kysely<unknown>, store.dialect);
        context.out(applied.length === 0 ? "database is up to date\n" : `applied ${applied.join(", ")}\n`);
      } finally {
        await store.close();
      }
    });
}
