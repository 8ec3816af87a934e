// What the test records (src/presentation/test-records.ts) need besides the test cases: their results' statistics
// and linked tickets, the repository's address and its code owners.
import {
  CLASSIFICATION_WINDOW_MS,
  type CommonFailure,
  type RunCounts,
  type TestCase,
} from "../test-health/index.ts";
import type { Config } from "../config.ts";
import type { Clock } from "../ports/clock.ts";
import type { Repository } from "../ports/test-case-storage.ts";
import type { TestHealthStorage } from "../ports/test-health-persistence.ts";
import { type RecordContext, testRecord, type TestStatistics } from "../presentation/test-records.ts";
import type { RepositoryFacts } from "./checkout-facts.ts";

/** The five most common failures (docs/test-health.md#listings). */
const COMMON_FAILURES_SHOWN = 5;

/**
 * What the records of `testCases` need from their results and linked tickets, read in a few queries for the whole
 * page.
 */
export async function testStatistics(
  storage: TestHealthStorage,
  testCases: readonly TestCase[],
  now: number,
  options: { full: boolean },
): Promise<Map<number, TestStatistics>> {
  const keys = testCases.map((testCase) => testCase.key);
  const since = now - CLASSIFICATION_WINDOW_MS;
  const [runs, failures, pullRequests, tickets] = await Promise.all([
    options.full ? storage.runCounts(keys, now) : new Map<number, RunCounts>(),
    options.full
      ? storage.commonFailures(keys, since, COMMON_FAILURES_SHOWN)
      : new Map<number, CommonFailure[]>(),
    storage.pullRequestsImpacted(keys, since),
    storage.ticketUrls(keys),
  ]);
  return new Map(
    keys.map((key) => [
      key,
      {
        runs: runs.get(key),
        commonFailures: failures.get(key) ?? [],
        pullRequestsImpacted: pullRequests.get(key) ?? 0,
        ticketUrl: tickets.get(key) ?? null,
      },
    ]),
  );
}

interface RecordDependencies {
  config: Pick<Config, "githubWebUrl" | "publicUrl">;
  store: TestHealthStorage;
  repositoryFacts: RepositoryFacts;
  clock: Clock;
}

export async function recordContext(
  deps: RecordDependencies,
  repository: Repository,
): Promise<RecordContext> {
  return {
    repositoryUrl: `${deps.config.githubWebUrl}/${repository.owner}/${repository.name}`,
    publicUrl: deps.config.publicUrl,
    codeowners: await deps.repositoryFacts.codeowners(repository),
  };
}

/** The full records of a page of tests of one repository. */
export async function fullTestRecords(
  deps: RecordDependencies,
  repository: Repository,
  testCases: readonly TestCase[],
) {
  const [context, statistics] = await Promise.all([
    recordContext(deps, repository),
    testStatistics(deps.store, testCases, deps.clock(), { full: true }),
  ]);
  return testCases.map((testCase) => testRecord(context, testCase, statistics.get(testCase.key)));
}
