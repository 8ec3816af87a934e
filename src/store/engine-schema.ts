// Row types of the merge queue engine's tables (migration 0003; the outbox's claims and lanes, 0008; run pools,
// 0010; parallel lanes, 0011).
import type { Generated } from "kysely";
import type { OutboxLane } from "../ports/queue-persistence.ts";

export interface QueueStatesTable {
  queue_id: string;
  /** The queue core's QueueState as JSON: the source of truth of the queue. */
  state: string;
  version: number;
  next_command_seq: number;
  next_deadline: number | null;
  runs_in_flight: number;
  /** Of the runs in flight, those of the bisection pool (bisection and confirmation runs). */
  bisection_runs_in_flight: Generated<number>;
  /** Independent groups of the active PRs (docs/queue.md#lanes): 1 while a single-mode queue tests anything. */
  lanes_in_flight: Generated<number>;
  awaiting_mergeability: number;
  updated_at: number;
}

/**
 * "effects": what the queue waits for (test branches, merges, cancellations); "notifications": what only tells
 * people (commit statuses, PR comments).
 */

export interface OutboxCommandsTable {
  id: string;
  queue_id: string;
  /** Commands of one lane of a queue execute in this order. */
  seq: number;
  /** The QueueCommand as JSON. */
  command: string;
  created_at: number;
  attempts: number;
  next_attempt_at: number;
  /** A worker that claimed the command owns it until then (several replicas share the outbox). */
  claimed_until: number | null;
  /** The worker holding the claim (migration 0008): only it renews the lease. */
  claimed_by: string | null;
  /** Each lane of a queue runs in `seq` order, independently of the other. */
  lane: OutboxLane;
  /** A newer pending command with the same key makes this one pointless (a status or comment edit). */
  supersession_key: string | null;
  completed_at: number | null;
  last_error: string | null;
}

export interface WebhookDeliveriesTable {
  id: string;
  event: string;
  /** When it was recorded or, for a claim, when the claim was last taken. */
  received_at: number;
  /** Null while a replica is handling it (a claim). */
  handled_at: number | null;
}

export interface TestRunsTable {
  id: string;
  queue_id: string;
  status: string;
  test_branch: string;
  test_branch_sha: string | null;
  started_at: number;
  ended_at: number | null;
  end_reason: string | null;
  /** main, bisection or confirmation (the record's `purpose`); main unless told. */
  purpose: Generated<string>;
  /** The test run record (docs/api.md#records) as JSON, as of the run's last change. */
  record: string;
}

export interface PullRequestTransitionsTable {
  submission_id: string;
  seq: number;
  queue_id: string;
  pr_number: number;
  state: string;
  reason: string;
  at: number;
}

export interface PullRequestCommentsTable {
  submission_id: string;
  queue_id: string;
  comment_id: number;
}

export interface ImpactedTargetsTable {
  queue_id: string;
  pr_number: number;
  head_sha: string;
  /** JSON array of target names, or the JSON string "ALL". */
  targets: string;
  updated_at: number;
}

export interface QueueEngineTables {
  impacted_targets: ImpactedTargetsTable;
  queue_states: QueueStatesTable;
  outbox_commands: OutboxCommandsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  test_runs: TestRunsTable;
  pull_request_transitions: PullRequestTransitionsTable;
  pull_request_comments: PullRequestCommentsTable;
}
