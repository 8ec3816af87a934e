// The pages of the test-health listings (docs/test-health.md#listings), read with keyset paging: a page starts after (or ends
// before) the sort key of a row the client saw, so each row is read once however far the walk goes, and rows that
// change while it goes cannot make another row repeat or vanish. Every listing reads as of a snapshot time: rows
// whose sort key moved after it (a status changed, a test was quarantined again, failures were received) are left
// out, and the sort keys only grow with time, so a row never moves from the pages already walked to those ahead.
import {
  type Expression,
  type ExpressionBuilder,
  type Kysely,
  type Selectable,
  type SelectQueryBuilder,
  type SqlBool,
  sql,
} from "kysely";
import {
  type FailingTest,
  type FailureCountKey,
  forward,
  type HealthStatus,
  type Page,
  pageOf,
  type PagePosition,
  type QuarantineKey,
  type StatusChangeKey,
  type TestCase,
} from "../test-health/index.ts";
import type { TestListingReads, FailureRange } from "../ports/test-listing-reads.ts";
import type { Connection, Dialect } from "./connection.ts";
import { serviceSecret } from "./service-secrets.ts";
import type { Database } from "./schema.ts";
import { testCaseFromRow } from "./test-cases.ts";
import type { TestCasesTable } from "./test-health-schema.ts";

type TestCasesWhere = ExpressionBuilder<Database, "test_cases">;

/** A repository's tests of an unhealthy status, as of `snapshot`: what the count and the pages read alike. */
const unhealthyAsOf =
  (repositoryId: string, status: Exclude<HealthStatus, "healthy">, snapshot: number) =>
  (eb: TestCasesWhere) =>
    eb.and([
      eb("repository_id", "=", repositoryId),
      // Literals, so that the planner matches the partial index's predicate.
      eb("status", "<>", sql.lit("healthy")),
      eb("status", "=", status),
      eb("status_changed_at", "<=", snapshot),
    ]);

/** A repository's quarantined tests, as of `snapshot`. */
const quarantinedAsOf = (repositoryId: string, snapshot: number) => (eb: TestCasesWhere) =>
  eb.and([
    eb("repository_id", "=", repositoryId),
    eb("quarantined", "=", sql.lit(1)),
    eb("quarantined_at", "<=", snapshot),
  ]);

/** The failures of `range`. */
const failuresIn = (range: FailureRange) => (eb: ExpressionBuilder<Database, "test_failures">) =>
  eb.and([
    eb("repository_id", "=", range.repositoryId),
    eb("occurred_at", ">=", range.from),
    eb("occurred_at", "<", range.to),
    eb("received_at", "<=", range.snapshot),
  ]);

/** How many test cases a filter selects. */
async function countTestCases(db: Kysely<Database>, filter: (eb: TestCasesWhere) => Expression<SqlBool>) {
  const row = await db
    .selectFrom("test_cases")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .where(filter)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function countUnhealthyTests(
  db: Kysely<Database>,
  repositoryId: string,
  status: Exclude<HealthStatus, "healthy">,
  snapshot: number,
): Promise<number> {
  return countTestCases(db, unhealthyAsOf(repositoryId, status, snapshot));
}

export async function unhealthyTestsPage(
  db: Kysely<Database>,
  repositoryId: string,
  status: Exclude<HealthStatus, "healthy">,
  snapshot: number,
  position: PagePosition<StatusChangeKey>,
  limit: number,
): Promise<Page<TestCase>> {
  const query = db
    .selectFrom("test_cases")
    .selectAll()
    .where(unhealthyAsOf(repositoryId, status, snapshot));
  return newestFirstPage(query, "status_changed_at", position, limit);
}

type TestCasesQuery = SelectQueryBuilder<Database, "test_cases", Selectable<TestCasesTable>>;

/** A page of the test cases `query` selects, by [`column`, key], the largest first. */
async function newestFirstPage(
  query: TestCasesQuery,
  column: "status_changed_at" | "quarantined_at",
  position: PagePosition<[number, number]>,
  limit: number,
): Promise<Page<TestCase>> {
  if (position.kind === "after" || position.kind === "before") {
    const [at, key] = position.key;
    const operator = position.kind === "after" ? "<" : ">";
    query = query.where((eb) => eb(eb.refTuple(column, "key"), operator, eb.tuple(at, key)));
  }
  const direction = forward(position) ? "desc" : "asc";
  const rows = await query
    .orderBy(column, direction)
    .orderBy("key", direction)
    .limit(limit + 1)
    .execute();
  return pageOf(rows.map(testCaseFromRow), limit, position);
}

export async function countQuarantinedTests(
  db: Kysely<Database>,
  repositoryId: string,
  snapshot: number,
): Promise<number> {
  return countTestCases(db, quarantinedAsOf(repositoryId, snapshot));
}

export async function quarantinedTestsPage(
  db: Kysely<Database>,
  repositoryId: string,
  snapshot: number,
  position: PagePosition<QuarantineKey>,
  limit: number,
): Promise<Page<TestCase>> {
  const query = db.selectFrom("test_cases").selectAll().where(quarantinedAsOf(repositoryId, snapshot));
  return newestFirstPage(query, "quarantined_at", position, limit);
}

export async function countFailingTests(db: Kysely<Database>, range: FailureRange): Promise<number> {
  const row = await db
    .selectFrom("test_failures")
    .select((eb) => eb.fn.count<number>("test_key").distinct().as("count"))
    .where(failuresIn(range))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function failingTestsPage(
  db: Kysely<Database>,
  dialect: Dialect,
  range: FailureRange,
  position: PagePosition<FailureCountKey>,
  limit: number,
): Promise<Page<FailingTest>> {
  // Names order by their bytes on both dialects (PostgreSQL would otherwise follow the database's locale), so that
  // the order is the same everywhere and matches the comparisons of the keyset.
  const name = dialect === "postgres" ? sql<string>`t.name collate "C"` : sql<string>`t.name`;
  let query = db
    .with("counts", (qb) =>
      qb
        .selectFrom("test_failures")
        .select((eb) => ["test_key", eb.fn.countAll<number>().as("failures")])
        .where(failuresIn(range))
        .groupBy("test_key"),
    )
    .selectFrom("counts as c")
    .innerJoin("test_cases as t", "t.key", "c.test_key")
    .selectAll("t")
    .select("c.failures");
  if (position.kind === "after" || position.kind === "before") {
    const [failures, testName, key] = position.key;
    // "after" in listing order: fewer failures, or as many and a greater name, or the same name and a greater key.
    const [fewer, greater] = position.kind === "after" ? (["<", ">"] as const) : ([">", "<"] as const);
    query = query.where(
      sql<SqlBool>`(c.failures ${sql.raw(fewer)} ${failures} or (c.failures = ${failures} and (${name} ${sql.raw(greater)} ${testName} or (${name} = ${testName} and t.key ${sql.raw(greater)} ${key}))))` as Expression<SqlBool>,
    );
  }
  const [countDirection, nameDirection] = forward(position) ? ["desc", "asc"] : ["asc", "desc"];
  const rows = await query
    .orderBy(sql`c.failures ${sql.raw(countDirection)}`)
    .orderBy(sql`${name} ${sql.raw(nameDirection)}`)
    .orderBy(sql`t.key ${sql.raw(nameDirection)}`)
    .limit(limit + 1)
    .execute();
  return pageOf(
    rows.map((row) => ({ testCase: testCaseFromRow(row), failures: Number(row.failures) })),
    limit,
    position,
  );
}

/** The test-health listings' reads on this database. */
export function testListingReads(store: Connection): TestListingReads {
  const { db, dialect } = store;
  return {
    countUnhealthyTests: (...args) => countUnhealthyTests(db, ...args),
    unhealthyTestsPage: (...args) => unhealthyTestsPage(db, ...args),
    countQuarantinedTests: (...args) => countQuarantinedTests(db, ...args),
    quarantinedTestsPage: (...args) => quarantinedTestsPage(db, ...args),
    countFailingTests: (range) => countFailingTests(db, range),
    failingTestsPage: (...args) => failingTestsPage(db, dialect, ...args),
    pageTokenSecret: () => serviceSecret(db, "page_tokens"),
  };
}
