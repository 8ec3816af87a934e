// A dispatch whose events cannot change the queue (see isInert) is answered without a write transaction: the saved
// version stays, and its delivery is not recorded. Another replica's steps must never be missed on the way.
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import type { QueueEvent } from "../../src/queue/index.ts";
import { QueueRunner } from "../../src/runner/queue-runner.ts";
import { queueStorage } from "../../src/store/queue-storage.ts";
import { createTestStore, type TestStore, testDialects } from "../support/database.ts";
import { anOutboxQueue } from "../support/outbox.ts";
import { aCommitStatus, aPr, T0 } from "../support/queue-factories.ts";

const stores: TestStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.destroy()));
});

/** A runner of its own, with its own cache of states: another replica on the same database. */
function aReplica(store: TestStore) {
  return new QueueRunner({
    store: queueStorage(store),
    clock: () => T0,
    log: pino({ level: "silent" }),
    prUrl: (_, prNumber) => `https://github.com/acme/widgets/pull/${prNumber}`,
    onCommandsSaved: () => {},
  });
}

const statusOn = (sha: string, id: number): QueueEvent => ({
  type: "status_reported",
  sha,
  report: aCommitStatus({ name: "job-1", id, state: "pending" }),
});

describe.each(testDialects)("inert dispatches on %s", (dialect) => {
  /** A queue with one run in flight, its required statuses known and its branch not built yet. */
  async function aQueueTesting() {
    const store = await createTestStore(dialect);
    stores.push(store);
    const queueId = await anOutboxQueue(store, "widgets");
    const runner = aReplica(store);
    const state = await runner.dispatch(queueId, [aPr(1)]);
    const runId = Object.keys(state!.runs)[0]!;
    await runner.dispatch(queueId, [
      { type: "required_statuses_resolved", runId, statuses: ["ci"], source: "service_config" },
    ]);
    const saved = async () => (await store.loadQueueState(queueId))!;
    const deliveries = async () =>
      (await store.db.selectFrom("webhook_deliveries").select("id").execute()).map((row) => row.id);
    return { store, queueId, runner, runId, saved, deliveries };
  }

  it("writes nothing for a report the run holds already, and records the delivery of one that changed it", async () => {
    const { queueId, runner, runId, saved, deliveries } = await aQueueTesting();
    await runner.dispatch(queueId, [{ type: "test_branch_created", runId, sha: "tested" }]);
    const delivery = (id: string) => ({ delivery: { id, event: "status" } });
    await runner.dispatch(queueId, [statusOn("tested", 5)], delivery("first"));
    const before = await saved();

    const answered = await runner.dispatch(queueId, [statusOn("tested", 5)], delivery("copy"));
    await runner.dispatch(queueId, [statusOn("tested", 4)], delivery("older"));

    expect((await saved()).version).toBe(before.version);
    expect(answered).toEqual(before.state);
    expect(await deliveries()).toEqual(["first:widgets-main"]);
    await runner.dispatch(queueId, [statusOn("tested", 6)], delivery("newer"));
    expect((await saved()).version).toBe(before.version + 1);
  });

  it("steps a report that another replica's step made count, though the state this one knows says it cannot", async () => {
    const { store, queueId, runner, runId, saved } = await aQueueTesting();
    // On the state this replica knows, no run tests `tested`: a report on it would change nothing.
    expect(Object.values((await saved()).state.runs).map((run) => run.testBranchSha)).toEqual([null]);
    await aReplica(store).dispatch(queueId, [{ type: "test_branch_created", runId, sha: "tested" }]);

    await runner.dispatch(queueId, [statusOn("tested", 5)], { delivery: { id: "d", event: "status" } });

    expect((await saved()).state.runs[runId]!.reports["status:job-1"]).toMatchObject({ id: 5 });
  });
});
