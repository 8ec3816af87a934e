// The pages of the test-health listings (contract 7.5), read with keyset paging: a page starts after (or ends
// before) the sort key of a row the client saw, so each row is read once however far the walk goes, and rows that
// change while it goes cannot make another row repeat or vanish. Every listing reads as of a snapshot time: rows
// whose sort key moved after it (a status changed, a test was quarantined again, failures were received) are left
// out, and the sort keys only grow with time, so a row never moves from the pages already walked to those ahead.
import {
  type Expression,
  type Kysely,
  type Selectable,
  type SelectQueryBuilder,
  type SqlBool,
  sql,
} from "kysely";
import type { HealthStatus } from "../health/classification.ts";
import type { Dialect } from "./database.ts";
import type { Database } from "./schema.ts";
import type { TestCase } from "../health/test-case.ts";
import { testCaseFromRow } from "./test-cases.ts";
import type { TestCasesTable } from "./test-health-schema.ts";

/** Where a page is: the first or last rows, or the rows right after or right before a row's sort key. */
export type PagePosition<Key> =
  { kind: "first" } | { kind: "last" } | { kind: "after"; key: Key } | { kind: "before"; key: Key };

const forward = (position: PagePosition<unknown>) => position.kind === "first" || position.kind === "after";

/** A page of rows in listing order; `more` says whether rows lie beyond it in the direction it was read. */
export interface Page<Row> {
  rows: Row[];
  more: boolean;
}

function pageOf<Row>(rows: Row[], limit: number, position: PagePosition<unknown>): Page<Row> {
  const more = rows.length > limit;
  const kept = more ? rows.slice(0, limit) : rows;
  return { rows: forward(position) ? kept : kept.reverse(), more };
}

/** [status_changed_at, key]: most recent status change first. */
export type StatusChangeKey = [number, number];

export function statusChangeKey(testCase: TestCase): StatusChangeKey {
  return [testCase.statusChangedAt, testCase.key];
}

export async function countUnhealthyTests(
  db: Kysely<Database>,
  repositoryId: string,
  status: Exclude<HealthStatus, "healthy">,
  snapshot: number,
): Promise<number> {
  const row = await db
    .selectFrom("test_cases")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .where("repository_id", "=", repositoryId)
    // Literals, so that the planner matches the partial index's predicate.
    .where("status", "<>", sql.lit("healthy"))
    .where("status", "=", status)
    .where("status_changed_at", "<=", snapshot)
    .executeTakeFirstOrThrow();
  return Number(row.count);
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
    .where("repository_id", "=", repositoryId)
    .where("status", "<>", sql.lit("healthy"))
    .where("status", "=", status)
    .where("status_changed_at", "<=", snapshot);
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

/** [quarantined_at, key]: most recently quarantined first. */
export type QuarantineKey = [number, number];

export function quarantineKey(testCase: TestCase): QuarantineKey {
  return [testCase.quarantinedAt ?? 0, testCase.key];
}

export async function countQuarantinedTests(
  db: Kysely<Database>,
  repositoryId: string,
  snapshot: number,
): Promise<number> {
  const row = await db
    .selectFrom("test_cases")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .where("repository_id", "=", repositoryId)
    .where("quarantined", "=", sql.lit(1))
    .where("quarantined_at", "<=", snapshot)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function quarantinedTestsPage(
  db: Kysely<Database>,
  repositoryId: string,
  snapshot: number,
  position: PagePosition<QuarantineKey>,
  limit: number,
): Promise<Page<TestCase>> {
  const query = db
    .selectFrom("test_cases")
    .selectAll()
    .where("repository_id", "=", repositoryId)
    .where("quarantined", "=", sql.lit(1))
    .where("quarantined_at", "<=", snapshot);
  return newestFirstPage(query, "quarantined_at", position, limit);
}

/** The failures of a repository that list-failing-tests counts: in [from, to), received by `snapshot`. */
export interface FailureRange {
  repositoryId: string;
  from: number;
  to: number;
  snapshot: number;
}

/** [failures in the range, name, key]: most failures first, then by name (contract 7.5). */
export type FailureCountKey = [number, string, number];

export interface FailingTest {
  testCase: TestCase;
  failures: number;
}

export function failureCountKey(failing: FailingTest): FailureCountKey {
  return [failing.failures, failing.testCase.name, failing.testCase.key];
}

export async function countFailingTests(db: Kysely<Database>, range: FailureRange): Promise<number> {
  const row = await db
    .selectFrom("test_failures")
    .select((eb) => eb.fn.count<number>("test_key").distinct().as("count"))
    .where("repository_id", "=", range.repositoryId)
    .where("occurred_at", ">=", range.from)
    .where("occurred_at", "<", range.to)
    .where("received_at", "<=", range.snapshot)
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
        .where("repository_id", "=", range.repositoryId)
        .where("occurred_at", ">=", range.from)
        .where("occurred_at", "<", range.to)
        .where("received_at", "<=", range.snapshot)
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

/**
 * How long a walk through a listing may use its snapshot. The retention purge keeps results this much longer than
 * TEST_RESULTS_RETENTION_DAYS, and a walk reads results no older than the retention at its snapshot, so no purge
 * can change what a walk counts.
 */
export const LISTING_SNAPSHOT_LIFETIME_MS = 24 * 3600 * 1000;
