// Test cases → the wire records, every field filled as docs/test-health.md#records says.
import type { CommonFailure, Codeowners, RunCounts, TestCase } from "../test-health/index.ts";

// ISO 8601 UTC with milliseconds (docs/api.md#conventions).
const isoTime = (epochMs: number) => new Date(epochMs).toISOString();

export interface RecordContext {
  /** The repository's page on GitHub. */
  repositoryUrl: string;
  /** PUBLIC_URL: the service's own address. */
  publicUrl: string;
  codeowners: Codeowners;
}

export interface TestStatistics {
  runs: RunCounts | undefined;
  commonFailures: CommonFailure[];
  pullRequestsImpacted: number;
  /** The linked ticket's URL, if any. */
  ticketUrl: string | null;
}

const status = (testCase: TestCase) => ({
  value: testCase.status,
  reason: testCase.statusReason,
  timestamp: isoTime(testCase.statusChangedAt),
});

const ticketOf = (statistics: TestStatistics | undefined): { html_url: string } | null =>
  statistics?.ticketUrl ? { html_url: statistics.ticketUrl } : null;

// docs/test-health.md#listings: a fraction over all runs in the period, 0 without runs.
const rate = (failures: number, runs: number) => (runs === 0 ? 0 : failures / runs);

/** Items of list-unhealthy-tests: the full record without most_common_failures and the failure rates. */
export function unhealthyTestRecord(
  context: RecordContext,
  testCase: TestCase,
  statistics: TestStatistics | undefined,
) {
  return {
    id: testCase.id,
    repository: { html_url: context.repositoryUrl },
    html_url: `${context.publicUrl}/tests/${testCase.id}`,
    name: testCase.name,
    variant: testCase.variant,
    status: status(testCase),
    codeowners: context.codeowners.ownersOf(testCase.filePath),
    pull_requests_impacted_last_7d: statistics?.pullRequestsImpacted ?? 0,
    quarantined: testCase.quarantined,
    quarantine_setting: testCase.quarantineSetting,
    file_path: testCase.filePath,
    parent: testCase.parent,
    classname: testCase.classname,
    // Null until a ticket is linked (link-ticket).
    ticket: ticketOf(statistics),
  };
}

/** The full record: items of list-failing-tests, `test` of get-test-details and set-quarantine-setting. */
export function testRecord(
  context: RecordContext,
  testCase: TestCase,
  statistics: TestStatistics | undefined,
) {
  const runs = statistics?.runs;
  return {
    ...unhealthyTestRecord(context, testCase, statistics),
    most_common_failures: (statistics?.commonFailures ?? []).map((failure) => ({
      summary: failure.summary,
      occurrence_count: failure.occurrenceCount,
      last_occurrence: isoTime(failure.lastOccurrence),
    })),
    failure_rate_last_7d: rate(runs?.failuresLast7d ?? 0, runs?.runsLast7d ?? 0),
    failure_rate_last_24h: rate(runs?.failuresLast24h ?? 0, runs?.runsLast24h ?? 0),
  };
}

/** Items of list-quarantined-tests (docs/test-health.md#records), plus status and quarantine_setting (docs/test-health.md#listings). */
export function quarantinedTestRecord(context: RecordContext, testCase: TestCase) {
  return {
    name: testCase.name,
    parent: testCase.parent,
    file: testCase.filePath,
    classname: testCase.classname,
    codeowners: context.codeowners.ownersOf(testCase.filePath),
    quarantined_at: isoTime(testCase.quarantinedAt ?? testCase.statusChangedAt),
    status_last_updated_at: isoTime(testCase.statusChangedAt),
    test_case_id: testCase.id,
    variant: testCase.variant,
    status: status(testCase),
    quarantine_setting: testCase.quarantineSetting,
  };
}
