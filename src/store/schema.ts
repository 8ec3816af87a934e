// Row types of every table, as Kysely sees them. Booleans are 0/1 and times epoch milliseconds (see the
// foundation migration), so the same rows come back from SQLite and PostgreSQL.
import type { Generated } from "kysely";
import type { QueueEngineTables } from "./engine-schema.ts";
import type { Flag } from "./flag.ts";
import type { MetricsTables } from "./metrics-schema.ts";
import type { TestHealthTables } from "./test-health-schema.ts";

export interface OrganizationsTable {
  id: string;
  slug: string;
  created_at: number;
}

export interface OrganizationOwnersTable {
  organization_id: string;
  host: string;
  owner_key: string;
}

export interface ApiTokensTable {
  id: string;
  organization_id: string;
  name: string | null;
  secret_hash: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

export interface RepositoriesTable {
  id: string;
  host: string;
  owner: string;
  name: string;
  owner_key: string;
  name_key: string;
  /** Null once the app was uninstalled from the repository; its queues are kept for a reinstall. */
  installation_id: number | null;
  created_at: number;
  updated_at: number;
}

export interface QueuesTable {
  id: string;
  repository_id: string;
  branch: string;
  branch_key: string;
  state: string;
  mode: string;
  concurrency: number;
  testing_timeout_minutes: number;
  can_optimistically_merge: Flag;
  pending_failure_depth: number;
  batch: Flag;
  batching_max_wait_time_minutes: number;
  batching_min_size: number;
  create_prs_for_testing_branches: Flag;
  comments_enabled: Flag;
  commands_enabled: Flag;
  status_check_enabled: Flag;
  bisection_concurrency: number | null;
  /** JSON array of status names, or null when the queue does not override them. */
  required_statuses: string | null;
  direct_merge_mode: string;
  optimization_mode: string;
  merge_method: string;
  confirm_failures: Flag;
  adaptive_batching: Flag;
  created_at: number;
  updated_at: number;
}

export interface PullRequestSubmissionsTable {
  id: string;
  queue_id: string;
  pr_number: number;
  pr_title: string;
  pr_sha: string;
  pr_base_branch: string;
  pr_author: string;
  state: string;
  state_reason: string | null;
  state_detail: string | null;
  state_changed_at: number;
  priority_value: number;
  used_default_priority: Flag;
  skip_the_line: Flag;
  no_batch: Flag;
  submitted_at: number;
  /** The PR record (docs/api.md#records) as JSON, as of the submission's last change. */
  record: Generated<string>;
}

export interface Database extends QueueEngineTables, TestHealthTables, MetricsTables {
  organizations: OrganizationsTable;
  organization_owners: OrganizationOwnersTable;
  api_tokens: ApiTokensTable;
  repositories: RepositoriesTable;
  queues: QueuesTable;
  pull_request_submissions: PullRequestSubmissionsTable;
  kysely_migration: { name: string; timestamp: string };
  kysely_migration_lock: { id: string; is_locked: Generated<number> };
}
