// A static migration provider: the list is compiled in, so it works the same under tsx, vitest and the
// built output (Kysely's FileMigrationProvider cannot load .ts files under vitest).
import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from "kysely";
import * as foundation from "../../db/migrations/0001_foundation.ts";
import * as testHealth from "../../db/migrations/0002_test_health.ts";
import * as queueEngine from "../../db/migrations/0003_queue_engine.ts";
import * as metrics from "../../db/migrations/0004_metrics.ts";
import * as testTickets from "../../db/migrations/0005_test_tickets.ts";
import * as testHealthSettings from "../../db/migrations/0006_test_health_settings.ts";
import * as testHealthUploads from "../../db/migrations/0007_test_health_uploads.ts";
import * as outboxLanes from "../../db/migrations/0008_outbox_lanes.ts";
import * as deliveryHandling from "../../db/migrations/0009_delivery_handling.ts";
import * as batchingSettings from "../../db/migrations/0010_batching_settings.ts";
import * as parallelLanes from "../../db/migrations/0011_parallel_lanes.ts";
import * as stateCompression from "../../db/migrations/0012_state_compression.ts";

const migrations: Record<string, Migration> = {
  "0001_foundation": foundation,
  "0002_test_health": testHealth,
  "0003_queue_engine": queueEngine,
  "0004_metrics": metrics,
  "0005_test_tickets": testTickets,
  "0006_test_health_settings": testHealthSettings,
  "0007_test_health_uploads": testHealthUploads,
  "0008_outbox_lanes": outboxLanes,
  "0009_delivery_handling": deliveryHandling,
  "0010_batching_settings": batchingSettings,
  "0011_parallel_lanes": parallelLanes,
  "0012_state_compression": stateCompression,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

export const latestMigration = Object.keys(migrations).sort().at(-1) as string;

/** Applies every pending migration; throws with the failing migration's name if one fails. */
export async function migrateToLatest(
  db: Kysely<unknown>,
  dialect: "sqlite" | "postgres",
): Promise<string[]> {
  // On PostgreSQL Kysely looks for its bookkeeping tables in every schema; pin them to the current one so
  // a database holding several Switchyard schemas (tests, staging beside production) keeps them apart.
  const migrationTableSchema =
    dialect === "postgres"
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
      : undefined;
  const migrator = new Migrator({ db, provider, ...(migrationTableSchema ? { migrationTableSchema } : {}) });
  const { error, results = [] } = await migrator.migrateToLatest();
  const failed = results.find((r) => r.status === "Error");
  if (error !== undefined || failed !== undefined) {
    const name = failed?.migrationName ?? "unknown";
    throw new Error(`migration ${name} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  return results.map((r) => r.migrationName);
}
