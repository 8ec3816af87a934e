// A repository's test-health settings (docs/test-health.md#quarantine), read by every writer of its tests' health.
import type { Kysely } from "kysely";
import type { Database } from "./schema.ts";
import type { TestHealthSettings } from "../ports/test-health-persistence.ts";

export const DEFAULT_TEST_HEALTH_SETTINGS: Readonly<TestHealthSettings> = Object.freeze({
  autoQuarantine: true,
});

export async function testHealthSettings(
  db: Kysely<Database>,
  repositoryId: string,
): Promise<TestHealthSettings> {
  const row = await db
    .selectFrom("test_health_settings")
    .select("auto_quarantine")
    .where("repository_id", "=", repositoryId)
    .executeTakeFirst();
  return row === undefined ? DEFAULT_TEST_HEALTH_SETTINGS : { autoQuarantine: row.auto_quarantine === 1 };
}

export async function saveTestHealthSettings(
  db: Kysely<Database>,
  repositoryId: string,
  settings: TestHealthSettings,
  now: number,
): Promise<void> {
  const values = { auto_quarantine: settings.autoQuarantine ? 1 : 0, updated_at: now } as const;
  await db
    .insertInto("test_health_settings")
    .values({ repository_id: repositoryId, ...values })
    .onConflict((oc) => oc.column("repository_id").doUpdateSet(values))
    .execute();
}
