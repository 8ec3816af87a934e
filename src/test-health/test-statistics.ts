// What storage counts of a test's results for its record (docs/test-health.md#listings): its runs and failures over
// the last 7 days and the last 24 hours, and its failures grouped by summary (see failure-summary.ts).

export interface RunCounts {
  runsLast7d: number;
  failuresLast7d: number;
  runsLast24h: number;
  failuresLast24h: number;
}

/** Failures of a test that share a summary. */
export interface CommonFailure {
  summary: string;
  occurrenceCount: number;
  lastOccurrence: number;
}
