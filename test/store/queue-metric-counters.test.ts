// The cumulative counters of the metrics (docs/monitoring.md#merge-queue-metrics): counted once from the history a database already holds
// when migration 0004 runs, then advanced by each queue step.
import type { Kysely } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as metricsMigration from "../../db/migrations/0004_metrics.ts";
import { DEFAULT_QUEUE_SETTINGS } from "../../src/queue/index.ts";
import { advanceCounters, counters } from "../../src/store/queue-metrics.ts";
import { insertQueue } from "../../src/store/queues.ts";
import { rememberRepository } from "../../src/store/repositories.ts";
import { createTestStore, type TestStore, testDialects } from "../support/database.ts";

describe.each(testDialects)("queue metric counters on %s", (dialect) => {
  let store: TestStore;
  beforeEach(async () => {
    store = await createTestStore(dialect);
    const repository = await rememberRepository(
      store.db,
      { host: "github.com", owner: "acme", name: "widgets", installationId: 7 },
      1,
    );
    await store.db
      .transaction()
      .execute((trx) =>
        insertQueue(
          trx,
          { id: "q1", repositoryId: repository.id, branch: "main", settings: DEFAULT_QUEUE_SETTINGS },
          1,
        ),
      );
  });
  afterEach(async () => {
    await store.destroy();
  });

  const sorted = async () =>
    (await counters(store.db, ["q1"])).map((row) => `${row.metric}:${row.label}=${row.value}`).sort();

  it("the migration counts the concluded PRs and ended runs already recorded, not those still going", async () => {
    const submission = (id: string, state: string) => ({
      id,
      queue_id: "q1",
      pr_number: Number(id.slice(1)),
      pr_title: id,
      pr_sha: "a".repeat(40),
      pr_base_branch: "main",
      pr_author: "alice",
      state,
      state_reason: null,
      state_detail: null,
      state_changed_at: 2,
      priority_value: 100,
      used_default_priority: 1 as const,
      skip_the_line: 0 as const,
      no_batch: 0 as const,
      submitted_at: 1,
    });
    await store.db
      .insertInto("pull_request_submissions")
      .values([
        submission("s1", "merged"),
        submission("s2", "merged"),
        submission("s3", "failed"),
        submission("s4", "testing"),
      ])
      .execute();
    const run = (id: string, status: string) => ({
      id,
      queue_id: "q1",
      status,
      test_branch: `mq/main/${id}`,
      test_branch_sha: null,
      started_at: 1,
      ended_at: status === "in_progress" ? null : 2,
      end_reason: null,
      record: "{}",
    });
    await store.db
      .insertInto("test_runs")
      .values([
        run("r1", "succeeded"),
        run("r2", "succeeded"),
        run("r3", "cancelled"),
        run("r4", "in_progress"),
      ])
      .execute();

    await metricsMigration.down(store.db as Kysely<unknown>);
    await metricsMigration.up(store.db as Kysely<unknown>);

    expect(await sorted()).toEqual([
      "pr_conclusions:failed=1",
      "pr_conclusions:merged=2",
      "test_runs:cancelled=1",
      "test_runs:succeeded=2",
    ]);
  });

  it("advancing adds one per increment, to counters old and new, in one statement per step", async () => {
    await store.db
      .transaction()
      .execute((trx) => advanceCounters(trx, "q1", [{ metric: "pr_conclusions", label: "merged" }]));
    await store.db.transaction().execute((trx) =>
      advanceCounters(trx, "q1", [
        { metric: "pr_conclusions", label: "merged" },
        { metric: "pr_conclusions", label: "merged" },
        { metric: "test_runs", label: "failed" },
      ]),
    );
    await store.db.transaction().execute((trx) => advanceCounters(trx, "q1", []));
    expect(await sorted()).toEqual(["pr_conclusions:merged=3", "test_runs:failed=1"]);
  });
});
