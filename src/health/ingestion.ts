// Ingestion of an upload of JUnit reports (contract 7.1): streamed parsing, batched inserts, and incremental
// classification of the tests the upload touched (7.3), all in one transaction so that an upload is stored all or
// nothing. Memory is bounded by the batch size, not by the size of the reports: across batches only the failing
// tests (which the answer lists), the repository's unsettled tests and the bounded key cache are remembered.
import type { Transaction } from "kysely";
import type { Dialect, Store } from "../store/database.ts";
import type { Repository } from "../store/repositories.ts";
import type { Database } from "../store/schema.ts";
import {
  inTestHealthTransaction,
  insertNewTestCases,
  loadTestCases,
  type NewTestCases,
  type TestCase,
  type TestCaseKeyCache,
  testCaseKeyAllocator,
  testCaseKeyCache,
  testCaseKeys,
  unsettledTestKeys,
} from "../store/test-cases.ts";
import { insertResults, insertUpload, recordUploadCounts, type Upload } from "../store/test-results.ts";
import { type Classification, classifyTest, healthyWithoutFailures, type TestRun } from "./classification.ts";
import { summarizeFailure } from "./failure-summary.ts";
import {
  type JunitInput,
  type ParsedTestCase,
  parseJunitDocumentInBatches,
  type TestAttempt,
} from "./junit-parser.ts";
import { reclassifyTestCases } from "./reclassification.ts";
import { firstHealth } from "./test-case-health.ts";
import { testCaseId } from "./test-identity.ts";

/** Test cases parsed, stored and classified together; large enough to amortise each statement. */
const BATCH_SIZE = 2000;
/** Only uploads dated within this of their receipt feed the key cache (see TestCaseKeyCache). */
const KEY_CACHE_HORIZON_MS = 24 * 3600 * 1000;

export interface UploadInput {
  repository: Repository;
  id: string;
  commitSha: string;
  branch: string;
  prNumber: number | null;
  jobName: string | null;
  variant: string;
  runUrl: string | null;
  /** The time of every result (contract 7.3); when the upload was received if the client did not say. */
  startedAt: number | null;
  /** One JUnit XML document each: text, bytes, or a stream of chunks. */
  documents: readonly JunitInput[];
  stableBranches: ReadonlySet<string>;
  now: number;
}

export interface FailedTest {
  testId: string;
  name: string;
  classname: string;
  filePath: string;
}

export interface UploadOutcome {
  uploadId: string;
  /** Every test case of the reports, skipped ones included. */
  testResults: number;
  /** Distinct tests whose final outcome in the upload was a failure. */
  failures: number;
  quarantinedFailures: number;
  unquarantinedFailures: FailedTest[];
  /** True when the upload has failures and each of them is a quarantined test. */
  allFailuresQuarantined: boolean;
}

/** One test of a batch: its first test case element, and every attempt of every element with its identity. */
interface TouchedTest {
  id: string;
  /** Its key, once known: from the key cache, the database, or handed out for a new test. */
  key: number | undefined;
  /** Whether the key came from the key cache (which then needs no telling). */
  cached: boolean;
  testCase: ParsedTestCase;
  attempts: TestAttempt[];
  /** The upload-wide position of each attempt: re-runs keep their order. */
  seqs: number[];
  anyFailed: boolean;
  failedFinally: boolean;
  /** Seen for the first time in this batch: classified from these results alone. */
  isNew: boolean;
  /** A new test's health is settled (see TestCasesTable.settled). */
  settled: boolean;
}

/** Parses and stores an upload. Throws the parser's JunitParseError, after rolling everything back. */
export async function ingestUpload(store: Store, input: UploadInput): Promise<UploadOutcome> {
  const keyCache = testCaseKeyCache(store.db);
  const ingestion = new Ingestion(store.dialect, input, keyCache);
  try {
    return await inTestHealthTransaction(store, input.repository.id, (trx) => ingestion.run(trx));
  } catch (error) {
    // Whether the work or the commit failed, the keys the upload handed out are taken back.
    keyCache.forget();
    throw error;
  }
}

class Ingestion {
  private readonly upload: Upload;
  private readonly occurredAt: number;
  /** Whether the upload's keys may be cached (see TestCaseKeyCache). */
  private readonly feedsKeyCache: boolean;
  /** Whether most tests of the upload's last batch were new. */
  private expectNewTests = false;

  constructor(
    private readonly dialect: Dialect,
    private readonly input: UploadInput,
    private readonly keyCache: TestCaseKeyCache,
  ) {
    this.occurredAt = input.startedAt ?? input.now;
    this.feedsKeyCache = this.occurredAt >= input.now - KEY_CACHE_HORIZON_MS;
    this.upload = {
      id: input.id,
      repositoryId: input.repository.id,
      commitSha: input.commitSha,
      branch: input.branch,
      prNumber: input.prNumber,
      jobName: input.jobName,
      variant: input.variant,
      runUrl: input.runUrl,
      startedAt: this.occurredAt,
      receivedAt: input.now,
    };
  }

  async run(trx: Transaction<Database>): Promise<UploadOutcome> {
    try {
      return await this.store(trx);
    } catch (error) {
      // Before the rollback lets the repository's next upload in: it must not find this upload's keys.
      this.keyCache.forget();
      throw error;
    }
  }

  private async store(trx: Transaction<Database>): Promise<UploadOutcome> {
    const { repository, now, variant } = this.input;
    const { dialect, occurredAt, keyCache } = this;
    const context = { stableBranches: this.input.stableBranches, now };
    keyCache.renew(now);
    const uploadKey = await insertUpload(trx, this.upload);
    const nextKeys = await testCaseKeyAllocator(trx, dialect);
    // A test that is not in this set is healthy without failures in the window; while it only passes it stays so.
    const unsettled = new Set(await unsettledTestKeys(trx, repository.id));
    const failing = new Set<number>();
    let testResults = 0;
    let seq = 0;

    for (const [documentIndex, document] of this.input.documents.entries()) {
      for await (const batch of parseJunitDocumentInBatches(document, {
        documentIndex,
        batchSize: BATCH_SIZE,
      })) {
        testResults += batch.length;
        const touched = new Map<string, TouchedTest>();
        // Tests the key cache does not know, to be read from the database or created.
        const unknown: TouchedTest[] = [];
        for (const testCase of batch) {
          const id = testCaseId(repository, {
            filePath: testCase.filePath,
            classname: testCase.classname,
            parent: testCase.parent,
            name: testCase.name,
            variant,
          });
          let test = touched.get(id);
          if (test === undefined) {
            const key = keyCache.get(id);
            test = {
              id,
              key,
              cached: key !== undefined,
              testCase,
              attempts: [],
              seqs: [],
              anyFailed: false,
              failedFinally: false,
              isNew: false,
              settled: true,
            };
            touched.set(id, test);
            if (key === undefined) unknown.push(test);
          }
          for (const attempt of testCase.attempts) {
            test.attempts.push(attempt);
            test.seqs.push(seq++);
            if (attempt.outcome === "failed") test.anyFailed = true;
          }
          if (testCase.outcome === "failed") test.failedFinally = true;
        }

        // While the upload's tests keep turning out new (a suite's first upload), they are inserted straight away
        // and only the ones that existed after all are looked up; otherwise they are looked up first.
        const stored = this.expectNewTests
          ? new Map<string, number>()
          : await testCaseKeys(
              trx,
              dialect,
              unknown.map((test) => test.id),
            );
        const firstSeen: TouchedTest[] = [];
        for (const test of unknown) {
          test.key = stored.get(test.id);
          if (test.key === undefined) firstSeen.push(test);
        }
        const created = await this.createTestCases(trx, firstSeen, nextKeys);
        for (const test of created) if (!test.settled) unsettled.add(test.key as number);
        this.expectNewTests = created.length > unknown.length / 2;

        // Flat rows: [test key, occurred at, upload key, seq, outcome] and, for failures,
        // [test key, occurred at, upload key, seq, repository, received at, summary].
        const results: unknown[] = [];
        const failures: unknown[] = [];
        const toReclassify: number[] = [];
        for (const test of touched.values()) {
          const key = test.key as number;
          for (const [index, attempt] of test.attempts.entries()) {
            const attemptSeq = test.seqs[index] as number;
            results.push(key, occurredAt, uploadKey, attemptSeq, attempt.outcome);
            if (attempt.outcome !== "failed") continue;
            const summary = summarizeFailure(attempt.failure ?? { kind: "failure", message: "", text: "" });
            failures.push(key, occurredAt, uploadKey, attemptSeq, repository.id, now, summary);
          }
          if (test.failedFinally) failing.add(key);
          if (this.feedsKeyCache && !test.cached) keyCache.remember(test.id, key);
          // New tests were classified from these very results; a settled test that only passed stays settled.
          if (!test.isNew && (test.anyFailed || unsettled.has(key))) toReclassify.push(key);
        }
        await insertResults(trx, dialect, results, failures);
        for (const testCase of await reclassifyTestCases(trx, dialect, toReclassify, context)) {
          if (testCase.settled) unsettled.delete(testCase.key);
          else unsettled.add(testCase.key);
        }
      }
    }

    await recordUploadCounts(trx, uploadKey, { testResults, failures: failing.size });
    return outcome(this.upload.id, testResults, await loadTestCases(trx, [...failing]), failing);
  }

  /**
   * Inserts the tests that were not found, unless they exist after all, and gives each its key; those it created
   * are marked new and returned.
   */
  private async createTestCases(
    trx: Transaction<Database>,
    tests: TouchedTest[],
    nextKeys: (count: number) => Promise<number[]>,
  ): Promise<TouchedTest[]> {
    if (tests.length === 0) return [];
    const { repository, variant, now } = this.input;
    // In id order, the new entries of the id index go in one sweep instead of at random places.
    tests.sort((a, b) => (a.id < b.id ? -1 : 1));
    const keys = await nextKeys(tests.length);
    // Tests that share a classification share their health, which each insert binds once.
    const groups = new Map<string, NewTestCases>();
    for (const [index, test] of tests.entries()) {
      test.key = keys[index] as number;
      test.isNew = true;
      const classification = this.classifyNew(test);
      const groupKey = `${classification.value}\u0000${classification.reason}`;
      let group = groups.get(groupKey);
      if (group === undefined) {
        const health = firstHealth(classification, now);
        group = { repositoryId: repository.id, variant, firstSeenAt: now, health, tests: [] };
        groups.set(groupKey, group);
      }
      test.settled = group.health.settled;
      const { name, classname, parent, filePath } = test.testCase;
      group.tests.push({ key: test.key, id: test.id, name, classname, parent, filePath });
    }
    let inserted = 0;
    for (const group of groups.values()) inserted += await insertNewTestCases(trx, this.dialect, group);
    if (inserted === tests.length) return tests;
    const stored = await testCaseKeys(
      trx,
      this.dialect,
      tests.map((test) => test.id),
    );
    for (const test of tests) {
      const key = stored.get(test.id) as number;
      test.isNew = key === test.key;
      test.key = key;
    }
    return tests.filter((test) => test.isNew);
  }

  private classifyNew(test: TouchedTest): Classification {
    // Without a failure there is nothing to weigh: the common case builds no runs.
    if (!test.anyFailed) return healthyWithoutFailures;
    const runs = test.attempts.map((attempt): TestRun => ({
      outcome: attempt.outcome,
      commitSha: this.upload.commitSha,
      branch: this.upload.branch,
      timestamp: new Date(this.occurredAt),
    }));
    return classifyTest(runs, { stableBranches: this.input.stableBranches, now: new Date(this.input.now) });
  }
}

function outcome(
  uploadId: string,
  testResults: number,
  failingTests: readonly TestCase[],
  failing: ReadonlySet<number>,
): UploadOutcome {
  const byKey = new Map(failingTests.map((testCase) => [testCase.key, testCase]));
  const unquarantinedFailures: FailedTest[] = [];
  let quarantinedFailures = 0;
  // In the order the failures appear in the reports.
  for (const key of failing) {
    const testCase = byKey.get(key);
    if (testCase === undefined) continue;
    if (testCase.quarantined) {
      quarantinedFailures++;
    } else {
      unquarantinedFailures.push({
        testId: testCase.id,
        name: testCase.name,
        classname: testCase.classname,
        filePath: testCase.filePath,
      });
    }
  }
  return {
    uploadId,
    testResults,
    failures: failing.size,
    quarantinedFailures,
    unquarantinedFailures,
    allFailuresQuarantined: failing.size > 0 && unquarantinedFailures.length === 0,
  };
}
