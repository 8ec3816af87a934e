// Ingestion of an upload of JUnit reports (contract 7.1): streamed parsing, batched inserts, and incremental
// classification of the tests the upload touched (7.3), all in one transaction so that an upload is stored all or
// nothing. Memory is bounded by the batch size, not by the size of the reports: only the failing tests (which the
// answer lists) and the repository's unsettled tests are remembered across batches.
import type { Store } from "../store/database.ts";
import type { Repository } from "../store/repositories.ts";
import {
  inTestHealthTransaction,
  insertTestCases,
  loadTestCases,
  type NewTestCase,
  type TestCase,
  type TestCaseIdentity,
  testCaseKeys,
  unsettledTestKeys,
} from "../store/test-cases.ts";
import {
  type FailureRow,
  insertResults,
  insertUpload,
  recordUploadCounts,
  type ResultRow,
  type Upload,
} from "../store/test-results.ts";
import { classifyTest, type TestRun } from "./classification.ts";
import { summarizeFailure } from "./failure-summary.ts";
import {
  type FailureDetails,
  type JunitInput,
  parseJunitDocumentInBatches,
  type TestOutcome,
} from "./junit-parser.ts";
import { reclassifyTestCases } from "./reclassification.ts";
import { firstHealth } from "./test-case-health.ts";
import { testCaseId } from "./test-identity.ts";

/** Test cases parsed, stored and classified together; large enough to amortise each statement. */
const BATCH_SIZE = 2000;

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

interface Attempt {
  seq: number;
  outcome: TestOutcome;
  failure: FailureDetails | null;
}

interface TouchedTest {
  identity: TestCaseIdentity;
  attempts: Attempt[];
  failedFinally: boolean;
}

/** Parses and stores an upload. Throws the parser's JunitParseError, after rolling everything back. */
export async function ingestUpload(store: Store, input: UploadInput): Promise<UploadOutcome> {
  const { repository, now } = input;
  const occurredAt = input.startedAt ?? now;
  const upload: Upload = {
    id: input.id,
    repositoryId: repository.id,
    commitSha: input.commitSha,
    branch: input.branch,
    prNumber: input.prNumber,
    jobName: input.jobName,
    variant: input.variant,
    runUrl: input.runUrl,
    startedAt: occurredAt,
    receivedAt: now,
  };
  const context = { stableBranches: input.stableBranches, now };
  const runOf = (attempt: Attempt): TestRun => ({
    outcome: attempt.outcome,
    commitSha: upload.commitSha,
    branch: upload.branch,
    timestamp: new Date(occurredAt),
  });

  return inTestHealthTransaction(store, repository.id, async (trx) => {
    const uploadKey = await insertUpload(trx, upload);
    // A test that is not in this set is healthy without failures in the window; while it only passes it stays so.
    const unsettled = new Set(await unsettledTestKeys(trx, repository.id));
    const failing = new Set<number>();
    let testResults = 0;
    let seq = 0;

    for (const [documentIndex, document] of input.documents.entries()) {
      for await (const batch of parseJunitDocumentInBatches(document, {
        documentIndex,
        batchSize: BATCH_SIZE,
      })) {
        testResults += batch.length;
        const touched = new Map<string, TouchedTest>();
        for (const testCase of batch) {
          const identity = {
            repositoryId: repository.id,
            name: testCase.name,
            classname: testCase.classname,
            parent: testCase.parent,
            filePath: testCase.filePath,
            variant: upload.variant,
          };
          const id = testCaseId(repository, identity);
          let entry = touched.get(id);
          if (entry === undefined) {
            entry = { identity: { id, ...identity }, attempts: [], failedFinally: false };
            touched.set(id, entry);
          }
          for (const attempt of testCase.attempts) entry.attempts.push({ seq: seq++, ...attempt });
          if (testCase.outcome === "failed") entry.failedFinally = true;
        }

        const keys = await testCaseKeys(trx, store.dialect, [...touched.keys()]);
        const firstSeen: NewTestCase[] = [];
        for (const [id, entry] of touched) {
          if (keys.has(id)) continue;
          const classification = classifyTest(entry.attempts.map(runOf), {
            stableBranches: context.stableBranches,
            now: new Date(now),
          });
          firstSeen.push({ ...entry.identity, ...firstHealth(classification, now), firstSeenAt: occurredAt });
        }
        const inserted = await insertTestCases(trx, store.dialect, firstSeen);
        for (const testCase of firstSeen) {
          const key = inserted.get(testCase.id) as number;
          keys.set(testCase.id, key);
          if (!testCase.settled) unsettled.add(key);
        }

        const results: ResultRow[] = [];
        const failures: FailureRow[] = [];
        const toReclassify: number[] = [];
        for (const [id, entry] of touched) {
          const key = keys.get(id) as number;
          let failed = false;
          for (const attempt of entry.attempts) {
            results.push([key, occurredAt, uploadKey, attempt.seq, attempt.outcome]);
            if (attempt.outcome !== "failed") continue;
            failed = true;
            const summary = summarizeFailure(attempt.failure ?? { kind: "failure", message: "", text: "" });
            failures.push([key, occurredAt, uploadKey, attempt.seq, repository.id, now, summary]);
          }
          if (entry.failedFinally) failing.add(key);
          // New tests were classified from these very results; a settled test that only passed stays settled.
          if (!inserted.has(id) && (failed || unsettled.has(key))) toReclassify.push(key);
        }
        await insertResults(trx, store.dialect, results, failures);
        for (const testCase of await reclassifyTestCases(trx, store.dialect, toReclassify, context)) {
          if (testCase.settled) unsettled.delete(testCase.key);
          else unsettled.add(testCase.key);
        }
      }
    }

    await recordUploadCounts(trx, uploadKey, { testResults, failures: failing.size });
    return outcome(upload.id, testResults, await loadTestCases(trx, [...failing]), failing);
  });
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
