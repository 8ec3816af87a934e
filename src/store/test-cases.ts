// Test cases (docs/test-health.md#test-identity) and the aggregates classification and quarantine keep on them (#classification, #quarantine).
import { CompiledQuery, type Kysely, type Selectable, sql, type Transaction } from "kysely";
import type { HealthStatus, QuarantineSetting, TestCase, TestCaseHealth } from "../test-health/index.ts";
import { insertValues } from "./bulk-insert.ts";
import type { Connection, Dialect } from "./connection.ts";
import type { Repository } from "./repositories.ts";
import type { Database } from "./schema.ts";
import type { TestCasesTable } from "./test-health-schema.ts";
import type { NewTestCases } from "../ports/test-case-storage.ts";

const healthColumns = [
  "status",
  "status_reason",
  "status_changed_at",
  "quarantine_setting",
  "quarantined",
  "quarantined_at",
  "settled",
] as const;

const flag = (value: boolean) => (value ? 1 : 0);

/** The values of `healthColumns`. */
const healthValues = (health: TestCaseHealth) => [
  health.status,
  health.statusReason,
  health.statusChangedAt,
  health.quarantineSetting,
  flag(health.quarantined),
  health.quarantinedAt,
  flag(health.settled),
];

const insertColumns = [
  "id",
  "repository_id",
  "name",
  "classname",
  "parent",
  "file_path",
  "variant",
  ...healthColumns,
  "first_seen_at",
] as const;

/** Appends the test case's values in `insertColumns` order. */
function pushValues(values: unknown[], testCase: TestCase): void {
  values.push(
    testCase.id,
    testCase.repositoryId,
    testCase.name,
    testCase.classname,
    testCase.parent,
    testCase.filePath,
    testCase.variant,
    ...healthValues(testCase),
    testCase.firstSeenAt,
  );
}

export function testCaseFromRow(row: Selectable<TestCasesTable>): TestCase {
  return {
    key: row.key,
    id: row.id,
    repositoryId: row.repository_id,
    name: row.name,
    classname: row.classname,
    parent: row.parent,
    filePath: row.file_path,
    variant: row.variant,
    status: row.status as HealthStatus,
    statusReason: row.status_reason,
    statusChangedAt: row.status_changed_at,
    quarantineSetting: row.quarantine_setting as QuarantineSetting,
    quarantined: row.quarantined === 1,
    quarantinedAt: row.quarantined_at,
    settled: row.settled === 1,
    firstSeenAt: row.first_seen_at,
  };
}

/**
 * Runs `work` in a transaction that no other test-health writer of the repository runs beside: uploads, the hourly
 * pass and quarantine settings of one repository read and write the same aggregates. SQLite has one writer anyway;
 * on PostgreSQL a transaction-scoped advisory lock on the repository serialises them across replicas, without
 * the deadlocks that row locks taken batch by batch would risk.
 */
export async function inTestHealthTransaction<T>(
  store: Connection,
  repositoryId: string,
  work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  return store.db.transaction().execute(async (trx) => {
    if (store.dialect === "postgres") {
      await sql`select pg_advisory_xact_lock(hashtext('switchyard.test_health'), hashtext(${repositoryId}))`.execute(
        trx,
      );
    }
    return work(trx);
  });
}

// Test cases are read by key in chunks: an `in` list of this many keys is one statement on both dialects.
const LOOKUP_CHUNK = 500;

/** The keys of the test cases among `ids` that exist (read from the id index alone). */
export async function testCaseKeys(
  db: Kysely<Database>,
  dialect: Dialect,
  ids: readonly string[],
): Promise<Map<string, number>> {
  const keys = new Map<string, number>();
  if (ids.length === 0) return keys;
  // The ids go in one parameter: binding a parameter per id costs as much as looking it up, and SQLite would
  // first copy an `in` list into a temporary index, where a join with json_each probes the id index directly.
  const { rows } = await db.executeQuery<{ key: number; id: string }>(
    dialect === "postgres"
      ? CompiledQuery.raw(`select "key", "id" from "test_cases" where "id" = any($1::text[])`, [ids])
      : CompiledQuery.raw(
          `select t."key", t."id" from json_each(?) as j join "test_cases" as t on t."id" = j."value"`,
          [JSON.stringify(ids)],
        ),
  );
  for (const row of rows) keys.set(row.id, row.key);
  return keys;
}

/**
 * Hands out the keys of new test cases inside the current test-health transaction, so that their results can be
 * written without reading the rows back. PostgreSQL draws them from the key's identity sequence (other
 * repositories' uploads run beside this one); SQLite has a single writer, and this transaction is it, so counting on
 * from the largest key is safe.
 */
export async function testCaseKeyAllocator(
  db: Kysely<Database>,
  dialect: Dialect,
): Promise<(count: number) => Promise<number[]>> {
  if (dialect === "postgres") {
    return async (count) => {
      if (count === 0) return [];
      const { rows } = await sql<{ key: number }>`
        select nextval(pg_get_serial_sequence('test_cases', 'key')) as key from generate_series(1, ${count}::int)
      `.execute(db);
      return rows.map((row) => Number(row.key));
    };
  }
  const row = await db
    .selectFrom("test_cases")
    .select((eb) => eb.fn.max("key").as("largest"))
    .executeTakeFirst();
  let largest = Number(row?.largest ?? 0);
  return async (count) => Array.from({ length: count }, () => ++largest);
}

const identityColumns = ["key", "id", "name", "classname", "parent", "file_path"] as const;

/**
 * Inserts new test cases, each unless a test with its id exists (then it keeps its key and health). Returns how many
 * were inserted: when that is all of them, no test needs looking up.
 */
export async function insertNewTestCases(
  db: Kysely<Database>,
  dialect: Dialect,
  group: NewTestCases,
): Promise<number> {
  const values: unknown[] = [];
  for (const test of group.tests)
    values.push(test.key, test.id, test.name, test.classname, test.parent, test.filePath);
  const { health } = group;
  const shared = {
    columns: ["repository_id", "variant", "first_seen_at", ...healthColumns],
    values: [group.repositoryId, group.variant, group.firstSeenAt, ...healthValues(health)],
  };
  return insertValues(db, dialect, "test_cases", identityColumns, values, {
    shared,
    suffix: `on conflict ("id") do nothing`,
  });
}

/** Writes the health of existing test cases (their identity never changes). */
export async function saveTestCaseHealth(
  db: Kysely<Database>,
  dialect: Dialect,
  testCases: readonly TestCase[],
): Promise<void> {
  if (testCases.length === 0) return;
  // An insert that always conflicts is a multi-row update that both dialects run as one statement.
  const updates = healthColumns.map((column) => `"${column}" = excluded."${column}"`).join(", ");
  const values: unknown[] = [];
  for (const testCase of testCases) {
    values.push(testCase.key);
    pushValues(values, testCase);
  }
  await insertValues(db, dialect, "test_cases", ["key", ...insertColumns], values, {
    suffix: `on conflict ("key") do update set ${updates}`,
  });
}

export async function loadTestCases(db: Kysely<Database>, keys: readonly number[]): Promise<TestCase[]> {
  const testCases: TestCase[] = [];
  for (let start = 0; start < keys.length; start += LOOKUP_CHUNK) {
    const rows = await db
      .selectFrom("test_cases")
      .selectAll()
      .where("key", "in", keys.slice(start, start + LOOKUP_CHUNK))
      .execute();
    for (const row of rows) testCases.push(testCaseFromRow(row));
  }
  return testCases;
}

export async function findTestCase(
  db: Kysely<Database>,
  repositoryId: string,
  id: string,
): Promise<TestCase | undefined> {
  const row = await db
    .selectFrom("test_cases")
    .selectAll()
    .where("id", "=", id)
    .where("repository_id", "=", repositoryId)
    .executeTakeFirst();
  return row === undefined ? undefined : testCaseFromRow(row);
}

/** The repository's flaky tests whose quarantine follows its auto-quarantine setting. */
export async function flakyTestsOnAutoQuarantine(
  db: Kysely<Database>,
  repositoryId: string,
): Promise<TestCase[]> {
  const rows = await db
    .selectFrom("test_cases")
    .selectAll()
    .where("repository_id", "=", repositoryId)
    // Literals, so that the planner matches the partial index of unhealthy tests.
    .where("status", "<>", sql.lit("healthy"))
    .where("status", "=", sql.lit("flaky"))
    .where("quarantine_setting", "=", "auto")
    .execute();
  return rows.map(testCaseFromRow);
}

/** Keys of the repository's tests that are not settled: the ones an upload or the hourly pass must reclassify. */
export async function unsettledTestKeys(db: Kysely<Database>, repositoryId: string): Promise<number[]> {
  const rows = await db
    .selectFrom("test_cases")
    .select("key")
    .where("repository_id", "=", repositoryId)
    // A literal, so that the planner matches the partial index's predicate.
    .where("settled", "=", sql.lit(0))
    .execute();
  return rows.map((row) => row.key);
}

/** Repositories with tests whose status the passage of time may change. */
export async function repositoriesWithUnsettledTests(db: Kysely<Database>): Promise<Repository[]> {
  return db
    .selectFrom("repositories")
    .select(["id", "host", "owner", "name", "installation_id as installationId"])
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom("test_cases")
          .select("test_cases.key")
          .whereRef("test_cases.repository_id", "=", "repositories.id")
          .where("test_cases.settled", "=", sql.lit(0)),
      ),
    )
    .execute();
}

export async function repositoriesWithTestCases(db: Kysely<Database>): Promise<string[]> {
  const rows = await db.selectFrom("test_cases").select("repository_id").distinct().execute();
  return rows.map((row) => row.repository_id);
}

/**
 * Forgets the repository's test cases first seen before `cutoff` that have no result left, unless someone chose
 * their quarantine setting (that choice outlives the results). Returns how many were removed.
 */
export async function deleteForgottenTestCases(
  db: Kysely<Database>,
  repositoryId: string,
  cutoff: number,
): Promise<number> {
  const result = await db
    .deleteFrom("test_cases")
    .where("repository_id", "=", repositoryId)
    .where("first_seen_at", "<", cutoff)
    .where("quarantine_setting", "=", "auto")
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("test_results")
            .select("test_results.test_key")
            .whereRef("test_results.test_key", "=", "test_cases.key"),
        ),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
