// The hourly test-health pass: results older than TEST_RESULTS_RETENTION_DAYS are purged, and the tests whose
// status rests on failures in the window are reclassified as those failures age (docs/test-health.md#classification).
import type { Logger } from "probot";
import { LISTING_SNAPSHOT_LIFETIME_MS } from "../test-health/index.ts";
import type { Repository } from "../ports/test-case-storage.ts";
import type { TestHealthStorage } from "../ports/test-health-persistence.ts";
import { reclassifyTestCases } from "./reclassification.ts";
import { type RepositoryFacts, stableBranches } from "./checkout-facts.ts";
import type { Clock } from "../ports/clock.ts";

const HOUR_MS = 3600 * 1000;
const DAY_MS = 24 * HOUR_MS;

export interface MaintenanceDependencies {
  store: TestHealthStorage;
  facts: RepositoryFacts;
  retentionDays: number;
  clock: Clock;
  log: Logger;
}

export interface MaintenanceReport {
  purgedResults: number;
  forgottenTests: number;
  reclassifiedTests: number;
}

/** One pass; safe to run on several replicas at once (each repository's work holds its test-health lock). */
export async function maintainTestHealth(deps: MaintenanceDependencies): Promise<MaintenanceReport> {
  const { store } = deps;
  const now = deps.clock();
  // Kept a listing snapshot's lifetime past the retention, so that no walk through a listing sees them go.
  const cutoff = now - deps.retentionDays * DAY_MS - LISTING_SNAPSHOT_LIFETIME_MS;
  const purgedResults = await store.purgeResults(cutoff);
  // Receipts go with the results of their uploads.
  await store.purgeUploadReceipts(cutoff);

  let forgottenTests = 0;
  for (const repositoryId of await store.repositoriesWithTestCases()) {
    forgottenTests += await store.inTestHealthTransaction(repositoryId, (trx) =>
      trx.deleteForgottenTestCases(repositoryId, cutoff),
    );
  }
  // By its rules the key cache holds no forgotten test (see TestCaseKeyCache); emptying it too costs one look-up
  // per test at the next upload, and keeps a stale key from ever reaching the results.
  if (forgottenTests > 0) store.testCaseKeyCache().forget();

  let reclassifiedTests = 0;
  for (const repository of await store.repositoriesWithUnsettledTests()) {
    reclassifiedTests += await reclassifyRepository(deps, repository, now);
  }
  return { purgedResults, forgottenTests, reclassifiedTests };
}

async function reclassifyRepository(deps: MaintenanceDependencies, repository: Repository, now: number) {
  // Asked before the transaction: a SQLite transaction must never wait on the network.
  const branches = await stableBranches(deps.store, deps.facts, repository);
  return deps.store.inTestHealthTransaction(repository.id, async (trx) => {
    const keys = await trx.unsettledTestKeys(repository.id);
    const { autoQuarantine } = await trx.testHealthSettings(repository.id);
    await reclassifyTestCases(trx, keys, {
      stableBranches: branches,
      now,
      autoQuarantine,
    });
    return keys.length;
  });
}

/** Runs the pass every hour (never two at once in this process); returns a function that stops it. */
export function scheduleTestHealthMaintenance(deps: MaintenanceDependencies): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    maintainTestHealth(deps)
      .then((report) => deps.log.info(report, "test health maintenance done"))
      .catch((error: unknown) => deps.log.error({ err: error }, "test health maintenance failed"))
      .finally(() => {
        running = false;
      });
  }, HOUR_MS);
  timer.unref();
  return () => clearInterval(timer);
}
