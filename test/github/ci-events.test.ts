// CI results go to the queues whose runs test their commit. Deliveries about different commits that arrive while
// the read of whom a commit concerns is on its way share the next read (on PostgreSQL, one round trip for several),
// each still reaching its own queues only. The runs here are started by another replica: a run this process stepped
// needs no read at all (test/store/queue-state-cache.test.ts).
import { pino } from "pino";
import type { Probot } from "probot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { QueueEvent } from "../../src/queue/index.ts";
import { queueDirectoryOn } from "../../src/edge-ports.ts";
import { registerCiEvents } from "../../src/github/webhooks/ci-events.ts";
import type { WebhookDependencies } from "../../src/github/webhooks/context.ts";
import { QueueRunner } from "../../src/runner/queue-runner.ts";
import { openDatabase, type Store } from "../../src/store/database.ts";
import { createTestStore, type TestStore, testDialects } from "../support/database.ts";
import { countedStatements } from "../support/counted-statements.ts";
import { anOutboxQueue } from "../support/outbox.ts";
import { aPr, T0 } from "../support/queue-factories.ts";

describe.each(testDialects)("CI webhooks on %s", (dialect) => {
  let store: TestStore;
  let replica: Store;
  beforeEach(async () => {
    store = await createTestStore(dialect);
    replica = openDatabase(store.databaseUrl);
  });
  afterEach(async () => {
    await replica.close();
    await store.destroy();
  });

  /** A queue of repository acme/`name` whose run, started by another replica, tests `sha`. */
  async function aQueueTesting(name: string, sha: string): Promise<string> {
    const queueId = await anOutboxQueue(store, name);
    const runner = new QueueRunner({
      store: replica,
      clock: () => T0,
      log: pino({ level: "silent" }),
      prUrl: (_, prNumber) => `https://github.com/acme/${name}/pull/${prNumber}`,
      onCommandsSaved: () => {},
    });
    const runId = Object.keys((await runner.dispatch(queueId, [aPr(1)]))!.runs)[0]!;
    await runner.dispatch(queueId, [{ type: "test_branch_created", runId, sha }]);
    return queueId;
  }

  /** The status and check_run handlers on `store`, counting the reads of whom commits concern. */
  function handlers() {
    const { db, counter } = countedStatements(store.db, (sql) => sql.includes("pr_sha"));
    const dispatched: [string, QueueEvent[]][] = [];
    const deps = {
      queueDirectory: queueDirectoryOn({ ...store, db }),
      queues: {
        dispatch: async (queueId: string, events: QueueEvent[]) => void dispatched.push([queueId, events]),
      },
      github: { pullRequest: async () => null },
    } as unknown as WebhookDependencies;
    const direct = registerCiEvents({ on: () => {} } as unknown as Probot, deps);
    const status = (id: number, sha: string, state = "pending") =>
      direct.get("status")!({
        id: `delivery-${id}`,
        name: "status",
        payload: { id, sha, context: "job", state, target_url: null },
      } as never);
    return { status, dispatched, counter };
  }

  it("reads whom the commits of deliveries arriving together concern in one read after the first", async () => {
    const widgets = await aQueueTesting("widgets", "sha-w");
    const gadgets = await aQueueTesting("gadgets", "sha-g");
    const { status, dispatched, counter } = handlers();

    await Promise.all([status(1, "sha-w"), status(2, "sha-g"), status(3, "sha-nowhere"), status(4, "sha-w")]);

    expect(counter.statements).toBe(2);
    expect(
      dispatched.map(([queueId, events]) => [
        queueId,
        events.map((event) => event.type === "status_reported" && event.report.id),
      ]),
    ).toEqual([
      [widgets, [1]],
      [gadgets, [2]],
      [widgets, [4]],
    ]);
  });

  it("tells the queue a finished result on a queued PR's own head, for its odds, and nothing while pending", async () => {
    // aQueueTesting queues PR #1 at head-1.
    const widgets = await aQueueTesting("widgets", "sha-w");
    const { status, dispatched } = handlers();

    await status(1, "head-1", "pending");
    await status(2, "head-1", "failure");
    await status(3, "head-2", "failure");

    expect(dispatched).toEqual([
      [widgets, [{ type: "pr_head_checks_observed", prNumber: 1, headSha: "head-1", outcome: "failure" }]],
    ]);
  });
});
