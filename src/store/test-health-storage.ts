// The test-health use cases' storage (src/ports/test-health-persistence.ts) on this database.
import type { TestCaseKeyCache } from "../ports/test-case-storage.ts";
import type { TestHealthStorage } from "../ports/test-health-persistence.ts";
import type { Connection } from "./connection.ts";
import { queueBranches } from "./queues.ts";
import { testCaseKeyCache } from "./test-case-key-cache.ts";
import {
  deleteForgottenTestCases,
  findTestCase,
  flakyTestsOnAutoQuarantine,
  inTestHealthTransaction,
  insertNewTestCases,
  loadTestCases,
  repositoriesWithTestCases,
  repositoriesWithUnsettledTests,
  saveTestCaseHealth,
  testCaseKeyAllocator,
  testCaseKeys,
  unsettledTestKeys,
} from "./test-cases.ts";
import { checkoutFacts, saveCheckoutFacts } from "./test-health-checkouts.ts";
import { saveTestHealthSettings, testHealthSettings } from "./test-health-settings.ts";
import {
  commonFailures,
  insertResults,
  insertUpload,
  pullRequestsImpacted,
  purgeResults,
  recordUploadCounts,
  runCounts,
  runHistory,
} from "./test-results.ts";
import { linkTicket, ticketUrls, unlinkTicket } from "./test-tickets.ts";
import { findUploadReceipt, purgeUploadReceipts, saveUploadReceipt } from "./test-upload-receipts.ts";

/**
 * `keyCache` finds the database's key cache (made at its first use): the view inside a transaction shares it, so
 * the keys it learns outlive the transaction.
 */
export function testHealthStorage(
  connection: Connection,
  keyCache: () => TestCaseKeyCache = () => testCaseKeyCache(connection.db),
): TestHealthStorage {
  const { db, dialect } = connection;
  return {
    inTestHealthTransaction: (repositoryId, work) =>
      inTestHealthTransaction(connection, repositoryId, (trx) =>
        work(testHealthStorage({ db: trx, dialect }, keyCache)),
      ),
    testCaseKeys: (ids) => testCaseKeys(db, dialect, ids),
    testCaseKeyAllocator: () => testCaseKeyAllocator(db, dialect),
    insertNewTestCases: (group) => insertNewTestCases(db, dialect, group),
    saveTestCaseHealth: (testCases) => saveTestCaseHealth(db, dialect, testCases),
    loadTestCases: (keys) => loadTestCases(db, keys),
    findTestCase: (repositoryId, id) => findTestCase(db, repositoryId, id),
    flakyTestsOnAutoQuarantine: (repositoryId) => flakyTestsOnAutoQuarantine(db, repositoryId),
    unsettledTestKeys: (repositoryId) => unsettledTestKeys(db, repositoryId),
    repositoriesWithUnsettledTests: () => repositoriesWithUnsettledTests(db),
    repositoriesWithTestCases: () => repositoriesWithTestCases(db),
    deleteForgottenTestCases: (repositoryId, cutoff) => deleteForgottenTestCases(db, repositoryId, cutoff),
    testCaseKeyCache: keyCache,
    insertUpload: (upload) => insertUpload(db, upload),
    recordUploadCounts: (uploadKey, counts) => recordUploadCounts(db, uploadKey, counts),
    insertResults: (context, results, failures) => insertResults(db, dialect, context, results, failures),
    runHistory: (testKeys, since) => runHistory(db, testKeys, since),
    runCounts: (testKeys, now) => runCounts(db, testKeys, now),
    commonFailures: (testKeys, since, limit) => commonFailures(db, testKeys, since, limit),
    pullRequestsImpacted: (testKeys, since) => pullRequestsImpacted(db, testKeys, since),
    purgeResults: (cutoff) => purgeResults(db, cutoff),
    testHealthSettings: (repositoryId) => testHealthSettings(db, repositoryId),
    saveTestHealthSettings: (repositoryId, settings, now) =>
      saveTestHealthSettings(db, repositoryId, settings, now),
    linkTicket: (testKey, url, now) => linkTicket(db, testKey, url, now),
    unlinkTicket: (testKey) => unlinkTicket(db, testKey),
    ticketUrls: (testKeys) => ticketUrls(db, testKeys),
    findUploadReceipt: (repositoryId, idempotencyKey) => findUploadReceipt(db, repositoryId, idempotencyKey),
    saveUploadReceipt: (receipt) => saveUploadReceipt(db, receipt),
    purgeUploadReceipts: (cutoff) => purgeUploadReceipts(db, cutoff),
    checkoutFacts: (repositoryId) => checkoutFacts(db, repositoryId),
    saveCheckoutFacts: (repositoryId, facts, now) => saveCheckoutFacts(db, repositoryId, facts, now),
    queueBranches: (repositoryId) => queueBranches(db, repositoryId),
  };
}
