// Ingestion of an upload of JUnit reports (docs/test-health.md#uploading-results-from-ci): streamed parsing
// (src/test-reports/), batched inserts, and incremental classification of the tests the upload touched
// (docs/test-health.md#classification), all in one transaction so that an upload is stored all or nothing. Memory is
// bounded by the batch size, not by the size of the reports: across batches only the keys of the failing tests (which
// the answer lists), of the repository's unsettled tests and of the tests to reclassify (failing or unsettled ones),
// and the bounded key cache are remembered.
import {
  type Classification,
  classifyTest,
  firstHealth,
  healthyWithoutFailures,
  type TestCase,
  type TestOutcome,
  type TestRun,
} from "../test-health/index.ts";
import type { NewTestCases, Repository, TestCaseKeyCache } from "../ports/test-case-storage.ts";
import type { TestHealthStorage } from "../ports/test-health-persistence.ts";
import type { Upload } from "../ports/test-result-storage.ts";
import type { JunitInput } from "../test-reports/junit-documents.ts";
import { isFailure, OUTCOMES, type ReadBatch, type ReadTest } from "../test-reports/report-batches.ts";
import { readReports } from "../test-reports/report-reader.ts";
import { reclassifyTestCases } from "./reclassification.ts";
import { type CheckoutReport, rememberCheckout } from "./checkout-facts.ts";
import type { FailedTest, FailingTestHealth, UploadOutcome } from "./upload-outcome.ts";
import { keepUploadReceipt, repeatedUpload, type UploadReceiptRequest } from "./upload-receipts.ts";

/**
 * Test cases parsed, stored and classified together: enough for each statement to carry hundreds of rows, few
 * enough that a batch's garbage dies young on both threads (at 2,000 the service peaked 20 to 40 MiB higher during
 * an upload of 200,000 results, for no less CPU).
 */
const BATCH_SIZE = 500;
/** Only uploads dated within this of their receipt feed the key cache (see TestCaseKeyCache). */
const KEY_CACHE_HORIZON_MS = 24 * 3600 * 1000;

/** What the client says of its run, as the upload is kept (the store adds the repository and the times). */
type RunFacts = Pick<Upload, "id" | "commitSha" | "branch" | "prNumber" | "jobName" | "variant" | "runUrl">;

export interface UploadInput extends RunFacts {
  repository: Repository;
  /** Where CI checked the repository out: absolute file paths below it are stored relative to it. */
  repoRoot: string | null;
  /** The time of every result (docs/test-health.md#classification); when the upload was received if the client did not say. */
  startedAt: number | null;
  /** One JUnit XML document each: text, bytes, or a stream of chunks. */
  documents: readonly JunitInput[];
  stableBranches: ReadonlySet<string>;
  /** What the uploading checkout tells of the repository: its default branch, its CODEOWNERS. */
  checkout?: CheckoutReport;
  /** The upload's idempotency key: a repeat of an upload stored before is answered as it was, storing nothing. */
  receipt?: UploadReceiptRequest;
  now: number;
}

export interface IngestionOptions {
  /** Test cases per batch (BATCH_SIZE); tests make it small to cross batches with small reports. */
  batchSize?: number;
}

/** One test of a batch, as the reader read it, and what ingestion learns of it. */
interface TouchedTest {
  read: ReadTest;
  /** Its key, once known: from the key cache, the database, or handed out for a new test. */
  key: number | undefined;
  /** Whether the key came from the key cache (which then needs no telling). */
  cached: boolean;
  /** Seen for the first time in this batch: classified from these results alone. */
  isNew: boolean;
  /** A new test's health is settled (see TestCasesTable.settled). */
  settled: boolean;
}

/** What an upload keeps across its batches. */
interface UploadState {
  key: number;
  nextKeys: (count: number) => Promise<number[]>;
  /** A test that is not in this set is healthy without failures in the window; while it only passes it stays so. */
  unsettled: Set<number>;
  /** Tests with a test case element that ended in a failure, in the order of the reports. */
  failing: Set<number>;
  /**
   * Known tests whose health the upload may change (a failure, or unsettled before): reclassified once all the
   * upload's results are stored. Per batch, they were a few tests each, and the statements' fixed costs took a
   * tenth of an upload with 1% failures; the health is the same, as it is computed from every stored run.
   */
  toReclassify: Set<number>;
  testResults: number;
  autoQuarantine: boolean;
}

/**
 * Parses and stores an upload, or answers the upload it repeats. Throws the parser's JunitParseError (after rolling
 * everything back), and IdempotencyKeyReused.
 */
export async function ingestUpload(
  store: TestHealthStorage,
  input: UploadInput,
  { batchSize = BATCH_SIZE }: IngestionOptions = {},
): Promise<UploadOutcome> {
  const keyCache = store.testCaseKeyCache();
  const ingestion = new Ingestion(input, keyCache, batchSize);
  const { repository, receipt, now } = input;
  try {
    // Under the repository's lock: a retry that arrives while the first attempt is still being stored waits for it.
    return await store.inTestHealthTransaction(repository.id, async (trx) => {
      const repeated = receipt === undefined ? undefined : await repeatedUpload(trx, repository.id, receipt);
      if (repeated !== undefined) return repeated;
      const outcome = await ingestion.run(trx);
      if (input.checkout !== undefined) {
        await rememberCheckout(trx, repository, input.branch, input.checkout, now);
      }
      if (receipt !== undefined) await keepUploadReceipt(trx, repository.id, receipt, outcome, now);
      return outcome;
    });
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
    private readonly input: UploadInput,
    private readonly keyCache: TestCaseKeyCache,
    private readonly batchSize: number,
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

  async run(trx: TestHealthStorage): Promise<UploadOutcome> {
    try {
      return await this.store(trx);
    } catch (error) {
      // Before the rollback lets the repository's next upload in: it must not find this upload's keys.
      this.keyCache.forget();
      throw error;
    }
  }

  private async store(trx: TestHealthStorage): Promise<UploadOutcome> {
    const { repository, now, variant } = this.input;
    this.keyCache.renew(now);
    const upload: UploadState = {
      key: await trx.insertUpload(this.upload),
      nextKeys: await trx.testCaseKeyAllocator(),
      unsettled: new Set(await trx.unsettledTestKeys(repository.id)),
      failing: new Set(),
      toReclassify: new Set(),
      testResults: 0,
      // Read under the repository's test-health lock, so that a change of setting waits for the upload.
      autoQuarantine: (await trx.testHealthSettings(repository.id)).autoQuarantine,
    };
    for await (const batch of readReports(this.input.documents, {
      repository,
      variant,
      repoRoot: this.input.repoRoot,
      batchSize: this.batchSize,
    })) {
      upload.testResults += batch.testCases;
      await this.storeBatch(trx, upload, batch);
    }
    const { testResults, failing } = upload;
    await trx.recordUploadCounts(upload.key, { testResults, failures: failing.size });
    const failingTests = new Map<number, TestCase>();
    for (const testCase of await this.reclassify(trx, upload)) failingTests.set(testCase.key, testCase);
    // The failing tests that were not reclassified: those the upload created.
    const created = [...failing].filter((key) => !failingTests.has(key));
    for (const testCase of await trx.loadTestCases(created)) failingTests.set(testCase.key, testCase);
    return outcome(this.upload.id, testResults, failingTests, failing);
  }

  private async storeBatch(trx: TestHealthStorage, upload: UploadState, batch: ReadBatch): Promise<void> {
    const { occurredAt, keyCache } = this;
    const { repository, now } = this.input;
    const { unsettled } = upload;
    const touched: TouchedTest[] = [];
    // Tests the key cache does not know, to be read from the database or created.
    const unknown: TouchedTest[] = [];
    for (const read of batch.tests) {
      const key = keyCache.get(read.id);
      const test = { read, key, cached: key !== undefined, isNew: false, settled: true };
      touched.push(test);
      if (key === undefined) unknown.push(test);
    }

    // While the upload's tests keep turning out new (a suite's first upload), they are inserted straight away
    // and only the ones that existed after all are looked up; otherwise they are looked up first.
    const stored = this.expectNewTests
      ? new Map<string, number>()
      : await trx.testCaseKeys(unknown.map((test) => test.read.id));
    const firstSeen: TouchedTest[] = [];
    for (const test of unknown) {
      test.key = stored.get(test.read.id);
      if (test.key === undefined) firstSeen.push(test);
    }
    const created = await this.createTestCases(trx, batch, firstSeen, upload);
    for (const test of created) if (!test.settled) unsettled.add(test.key as number);
    this.expectNewTests = created.length > unknown.length / 2;

    // Flat rows: [test key, seq, outcome] and, for failures, [test key, seq, summary].
    const results: unknown[] = [];
    const failures: unknown[] = [];
    const summaries = batch.failureSummaries;
    let failed = 0;
    for (const test of touched) {
      const key = test.key as number;
      const { id, firstAttempt, endAttempt, failedFinally } = test.read;
      const failedBefore = failed;
      for (let attempt = firstAttempt; attempt < endAttempt; attempt++) {
        const outcome = batch.outcomes[attempt] as number;
        const seq = batch.seqs[attempt];
        results.push(key, seq, OUTCOMES[outcome]);
        if (!isFailure(outcome)) continue;
        failures.push(key, seq, summaries[failed++]);
      }
      if (failedFinally) upload.failing.add(key);
      if (this.feedsKeyCache && !test.cached) keyCache.remember(id, key);
      // New tests were classified from these very results; a settled test that only passed stays settled.
      if (!test.isNew && (failed > failedBefore || unsettled.has(key))) upload.toReclassify.add(key);
    }
    const shared = { uploadKey: upload.key, occurredAt, repositoryId: repository.id, receivedAt: now };
    await trx.insertResults(shared, results, failures);
  }

  /**
   * Reclassifies the tests the upload may have changed, a batch's worth at a time (their runs are read into memory),
   * and returns those of them that failed in the upload as they now stand.
   */
  private async reclassify(trx: TestHealthStorage, upload: UploadState): Promise<TestCase[]> {
    const context = {
      stableBranches: this.input.stableBranches,
      now: this.input.now,
      autoQuarantine: upload.autoQuarantine,
    };
    const keys = [...upload.toReclassify];
    const failing: TestCase[] = [];
    for (let start = 0; start < keys.length; start += this.batchSize) {
      const chunk = keys.slice(start, start + this.batchSize);
      for (const testCase of await reclassifyTestCases(trx, chunk, context)) {
        if (upload.failing.has(testCase.key)) failing.push(testCase);
      }
    }
    return failing;
  }

  /**
   * Inserts the tests that were not found, unless they exist after all, and gives each its key; those it created
   * are marked new and returned.
   */
  private async createTestCases(
    trx: TestHealthStorage,
    batch: ReadBatch,
    tests: TouchedTest[],
    upload: UploadState,
  ): Promise<TouchedTest[]> {
    if (tests.length === 0) return [];
    const { repository, variant, now } = this.input;
    const keys = await upload.nextKeys(tests.length);
    // Tests that share a classification share their health, which each insert binds once.
    const groups = new Map<string, NewTestCases>();
    for (const [index, test] of tests.entries()) {
      test.key = keys[index] as number;
      test.isNew = true;
      const classification = this.classifyNew(batch, test.read);
      const groupKey = `${classification.value}\u0000${classification.reason}`;
      let group = groups.get(groupKey);
      if (group === undefined) {
        const health = firstHealth(classification, now, upload.autoQuarantine);
        group = { repositoryId: repository.id, variant, firstSeenAt: now, health, tests: [] };
        groups.set(groupKey, group);
      }
      test.settled = group.health.settled;
      const { id, name, classname, parent, filePath } = test.read;
      group.tests.push({ key: test.key, id, name, classname, parent, filePath });
    }
    let inserted = 0;
    for (const group of groups.values()) inserted += await trx.insertNewTestCases(group);
    if (inserted === tests.length) return tests;
    const stored = await trx.testCaseKeys(tests.map((test) => test.read.id));
    for (const test of tests) {
      const key = stored.get(test.read.id) as number;
      test.isNew = key === test.key;
      test.key = key;
    }
    return tests.filter((test) => test.isNew);
  }

  private classifyNew(batch: ReadBatch, test: ReadTest): Classification {
    const outcomes = batch.outcomes.subarray(test.firstAttempt, test.endAttempt);
    // Without a failure there is nothing to weigh: the common case builds no runs.
    if (!outcomes.some(isFailure)) return healthyWithoutFailures;
    const runs = Array.from(outcomes, (outcome): TestRun => ({
      outcome: OUTCOMES[outcome] as TestOutcome,
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
  byKey: ReadonlyMap<number, TestCase>,
  failing: ReadonlySet<number>,
): UploadOutcome {
  const unquarantinedFailures: FailedTest[] = [];
  const failingTestHealth: FailingTestHealth[] = [];
  let quarantinedFailures = 0;
  // In the order the failures appear in the reports.
  for (const key of failing) {
    const testCase = byKey.get(key);
    if (testCase === undefined) continue;
    failingTestHealth.push({
      name: readableName(testCase),
      health: testCase.quarantined ? "quarantined" : testCase.status,
    });
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
    failingTestHealth,
  };
}

/** A test as people name it: its class and its name, when it has a class. */
function readableName(testCase: TestCase): string {
  return testCase.classname === "" ? testCase.name : `${testCase.classname} › ${testCase.name}`;
}
