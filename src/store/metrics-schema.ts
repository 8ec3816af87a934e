// Row types of the metrics tables (migration 0004).
export interface QueueMetricCountersTable {
  queue_id: string;
  /** `pr_conclusions` (label: merged, failed, cancelled) or `test_runs` (label: the run's final status). */
  metric: string;
  label: string;
  value: number;
}

export interface MetricsTables {
  queue_metric_counters: QueueMetricCountersTable;
}
