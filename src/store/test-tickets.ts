// Tickets linked to test cases (`ticket`; POST /v1/flaky-tests/link-ticket: docs/test-health.md#records). A test has at most one;
// it goes when the test case goes (a foreign key with ON DELETE CASCADE, migration 0005).
import type { Kysely } from "kysely";
import type { Database } from "./schema.ts";

/** Links `url` to the test, replacing the ticket it had. */
export async function linkTicket(
  db: Kysely<Database>,
  testKey: number,
  url: string,
  now: number,
): Promise<void> {
  await db
    .insertInto("test_case_tickets")
    .values({ test_key: testKey, url, linked_at: now })
    .onConflict((oc) => oc.column("test_key").doUpdateSet({ url, linked_at: now }))
    .execute();
}

export async function unlinkTicket(db: Kysely<Database>, testKey: number): Promise<void> {
  await db.deleteFrom("test_case_tickets").where("test_key", "=", testKey).execute();
}

/** The ticket URL of each of the tests that has one, in one query (a listing's page holds at most 100 tests). */
export async function ticketUrls(
  db: Kysely<Database>,
  testKeys: readonly number[],
): Promise<Map<number, string>> {
  if (testKeys.length === 0) return new Map();
  const rows = await db
    .selectFrom("test_case_tickets")
    .select(["test_key", "url"])
    .where("test_key", "in", testKeys)
    .execute();
  return new Map(rows.map((row) => [Number(row.test_key), row.url]));
}
