// Test cases (contract 7.2) and the aggregates classification and quarantine keep on them (7.3, 7.4).
import { CompiledQuery, type Kysely, type Selectable, sql, type Transaction } from "kysely";
import type { HealthStatus, QuarantineSetting } from "../health/classification.ts";
import type { TestCase, TestCaseHealth } from "../health/test-case.ts";
import { insertValues } from "./bulk-insert.ts";
import type { Dialect, Store } from "./database.ts";
import type { Repository } from "./repositories.ts";
import type { Database } from "./schema.ts";
import type { TestCasesTable } from "./test-health-schema.ts";

const insertColumns = [
  "id",
  "repository_id",
  "name",
  "classname",
  "parent",
  "file_path",
  "variant",
  "status",
  "status_reason",
  "status_changed_at",
  "quarantine_setting",
  "quarantined",
  "quarantined_at",
  "settled",
  "first_seen_at",
] as const;

const flag = (value: boolean) => (value ? 1 : 0);

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
    testCase.status,
    testCase.statusReason,
    testCase.statusChangedAt,
    testCase.quarantineSetting,
    flag(testCase.quarantined),
    testCase.quarantinedAt,
    flag(testCase.settled),
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
  store: Store,
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

const HOUR_MS = 3600 * 1000;
/** Ids a cache holds; its tables take 64 bytes per id. */
const KEY_CACHE_CAPACITY = 250_000;

// The value of each hexadecimal digit's character code.
const HEX_VALUES = new Int8Array(128);
for (const [index, digit] of [..."0123456789abcdef"].entries()) HEX_VALUES[digit.charCodeAt(0)] = index;

/** The number the hexadecimal digits of `text` from `start` to `end` (at most 8) write, as a 32-bit integer. */
function hexWord(text: string, start: number, end: number): number {
  let word = 0;
  for (let index = start; index < end; index++) {
    word = (word << 4) | (HEX_VALUES[text.charCodeAt(index)] as number);
  }
  return word;
}

/** The four 32-bit words of a UUID's 32 hexadecimal digits (8-4-4-4-12: dashes at 8, 13, 18 and 23). */
function idWords(id: string): [number, number, number, number] {
  return [
    hexWord(id, 0, 8),
    (hexWord(id, 9, 13) << 16) | hexWord(id, 14, 18),
    (hexWord(id, 19, 23) << 16) | hexWord(id, 24, 28),
    hexWord(id, 28, 36),
  ];
}

/**
 * Keys of test cases seen lately, by id, kept by this process, so that the uploads of a known suite read no key:
 * with a large suite, those look-ups would cost as much as storing the results. A key never changes while its test
 * exists, and a test is deleted only once all its results are purged, a day past the retention: the cache starts
 * over every hour, and learns only from uploads whose results are dated within the last day, so no entry outlives
 * its test. An upload that fails takes back the keys it handed out, so it empties the cache.
 *
 * Every test case of an upload is looked up, so the cache is a hash table in typed arrays rather than a Map of
 * strings: such a Map kept every id alive for the garbage collector to trace and move, and its look-ups missed the
 * processor's caches; it took 0.3 s of the first upload of 150,000 tests. An id (a UUID, as testCaseId writes it)
 * is held as its 128 bits and placed by its first 32, which are already a hash; an id whose slot is taken goes to
 * the next free one.
 */
export class TestCaseKeyCache {
  private readonly capacity: number;
  private readonly mask: number;
  /** Slot i: the id's four 32-bit words at 4i to 4i + 3. */
  private readonly words: Int32Array;
  /** Slot i: the id's key; 0 marks a free slot (keys start at 1). */
  private readonly keys: Float64Array;
  /** The ids held, four words each, in the order they were learnt: a ring starting at `oldest`. */
  private readonly learnt: Int32Array;
  private oldest = 0;
  private size = 0;
  private since = Number.NEGATIVE_INFINITY;

  constructor(capacity = KEY_CACHE_CAPACITY) {
    this.capacity = capacity;
    // At most half full, so that the slots an id is looked for in stay few.
    let slots = 2;
    while (slots < 2 * capacity) slots *= 2;
    this.mask = slots - 1;
    this.words = new Int32Array(4 * slots);
    this.keys = new Float64Array(slots);
    this.learnt = new Int32Array(4 * capacity);
  }

  /** Called as an upload starts: empties the cache once an hour. */
  renew(now: number): void {
    if (now - this.since < HOUR_MS) return;
    this.forget();
    this.since = now;
  }

  get(id: string): number | undefined {
    const slot = this.find(...idWords(id));
    return slot < 0 ? undefined : this.keys[slot];
  }

  /** When full, the id learnt first goes. */
  remember(id: string, key: number): void {
    const [a, b, c, d] = idWords(id);
    if (this.find(a, b, c, d) >= 0) return;
    if (this.size === this.capacity) this.evictOldest();
    const slot = -1 - this.find(a, b, c, d);
    this.put(this.words, slot, a, b, c, d);
    this.keys[slot] = key;
    this.put(this.learnt, (this.oldest + this.size) % this.capacity, a, b, c, d);
    this.size++;
  }

  forget(): void {
    this.keys.fill(0);
    this.oldest = 0;
    this.size = 0;
  }

  /** The slot holding the id; else -1 - the free slot where the look-up ended. */
  private find(a: number, b: number, c: number, d: number): number {
    const { words, keys, mask } = this;
    for (let slot = a & mask; ; slot = (slot + 1) & mask) {
      if (keys[slot] === 0) return -1 - slot;
      const at = 4 * slot;
      if (words[at] === a && words[at + 1] === b && words[at + 2] === c && words[at + 3] === d) return slot;
    }
  }

  private put(table: Int32Array, index: number, a: number, b: number, c: number, d: number): void {
    table[4 * index] = a;
    table[4 * index + 1] = b;
    table[4 * index + 2] = c;
    table[4 * index + 3] = d;
  }

  private evictOldest(): void {
    const { words, keys, mask, learnt } = this;
    const at = 4 * this.oldest;
    let free = this.find(
      learnt[at] as number,
      learnt[at + 1] as number,
      learnt[at + 2] as number,
      learnt[at + 3] as number,
    );
    this.oldest = (this.oldest + 1) % this.capacity;
    this.size--;
    // Each id that follows without a free slot between moves back into the freed slot unless its own slot lies
    // after the freed one (cyclically): so every id stays reachable from its own slot without crossing a free one.
    for (let slot = (free + 1) & mask; keys[slot] !== 0; slot = (slot + 1) & mask) {
      const home = (words[4 * slot] as number) & mask;
      if (((slot - home) & mask) < ((slot - free) & mask)) continue;
      words.copyWithin(4 * free, 4 * slot, 4 * slot + 4);
      keys[free] = keys[slot] as number;
      free = slot;
    }
    keys[free] = 0;
  }
}

const keyCaches = new WeakMap<Kysely<Database>, TestCaseKeyCache>();

/** The key cache of a database. */
export function testCaseKeyCache(db: Kysely<Database>): TestCaseKeyCache {
  let cache = keyCaches.get(db);
  if (cache === undefined) keyCaches.set(db, (cache = new TestCaseKeyCache()));
  return cache;
}

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

/** Test cases seen for the first time together, with the same health: the new tests of a batch that share a classification. */
export interface NewTestCases {
  repositoryId: string;
  variant: string;
  firstSeenAt: number;
  health: TestCaseHealth;
  /** Each with its key, given by {@link testCaseKeyAllocator}. */
  tests: Pick<TestCase, "key" | "id" | "name" | "classname" | "parent" | "filePath">[];
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

const healthColumns = [
  "status",
  "status_reason",
  "status_changed_at",
  "quarantine_setting",
  "quarantined",
  "quarantined_at",
  "settled",
] as const;

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
