import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Transaction } from "kysely";
import { DEFAULT_QUEUE_SETTINGS, initialQueueState, type QueueState, step } from "../../src/queue/index.ts";
import type { Database } from "../../src/store/schema.ts";
import { deleteQueueRow, findQueue, insertQueue } from "../../src/store/queues.ts";
import {
  claimNextCommand,
  completeCommand,
  laneOf,
  type OutboxLane,
  purgeCompletedCommands,
  queuesWithDueCommands,
  renewClaims,
} from "../../src/store/outbox.ts";
import { insertQueueState, loadQueueState, saveQueueStep } from "../../src/store/queue-states.ts";
import { findRepository, forgetInstallation, rememberRepository } from "../../src/store/repositories.ts";
import { purgeDeliveries, recordDelivery } from "../../src/store/deliveries.ts";
import { findTestRunRecord, listSubmissions } from "../../src/store/submission-records.ts";
import { createTestStore, type TestStore, testDialects } from "../support/database.ts";
import { aPr, T0 } from "../support/queue-factories.ts";

describe.each(testDialects)("repositories, queues and queue states on %s", (dialect) => {
  let store: TestStore;
  beforeEach(async () => {
    store = await createTestStore(dialect);
  });
  afterEach(async () => {
    await store.destroy();
  });

  const aRepository = () =>
    rememberRepository(
      store.db,
      { host: "github.com", owner: "Acme", name: "Widgets", installationId: 7 },
      1,
    );

  /** A queue with its initial state, as createQueue makes it. */
  const aQueue = async (branch = "main") => {
    const repository = await aRepository();
    const settings = { ...DEFAULT_QUEUE_SETTINGS, requiredStatuses: ["ci"] };
    const state = initialQueueState({
      queueId: `q-${branch}`,
      targetBranch: branch,
      targetHeadSha: "main-0",
      testBranchPrefix: "mq/",
      settings,
    });
    await store.db.transaction().execute(async (trx) => {
      await insertQueue(trx, { id: state.queueId, repositoryId: repository.id, branch, settings }, T0);
      await insertQueueState(trx, state, T0);
    });
    return { repository, state };
  };

  /** Saves the step of PR 12's submission as the runner does; `also` runs in the same transaction. */
  const saveSubmission = async (
    state: QueueState,
    now = T0,
    also?: (trx: Transaction<Database>) => Promise<void>,
    prNumber = 12,
  ) => {
    const result = step(state, aPr(prNumber), now);
    await store.db.transaction().execute(async (trx) => {
      const stored = (await loadQueueState(trx, state.queueId))!;
      await saveQueueStep(trx, { stored, next: result.state, commands: result.commands, now, prUrl: String });
      await also?.(trx);
    });
    return result;
  };

  it("finds a repository whatever the case, keeping GitHub's spelling", async () => {
    await aRepository();
    expect(
      await findRepository(store.db, { host: "GitHub.com", owner: "acme", name: "WIDGETS" }),
    ).toMatchObject({
      owner: "Acme",
      name: "Widgets",
      installationId: 7,
    });
  });

  it("remembering a repository again moves it to the new installation", async () => {
    const first = await aRepository();
    const again = await rememberRepository(
      store.db,
      { host: "github.com", owner: "acme", name: "widgets", installationId: 8 },
      2,
    );
    expect(again).toEqual({ ...first, owner: "acme", name: "widgets", installationId: 8 });
  });

  it("forgetting an installation keeps the repository and its queues", async () => {
    const { repository } = await aQueue();
    await forgetInstallation(store.db, 7, undefined, 3);
    expect((await findRepository(store.db, repository))?.installationId).toBeNull();
    expect(await findQueue(store.db, repository.id, "main")).toBeDefined();
  });

  it("refuses a second queue for the same branch in another case", async () => {
    const { repository } = await aQueue("main");
    const second = await store.db
      .transaction()
      .execute((trx) =>
        insertQueue(
          trx,
          { id: "other", repositoryId: repository.id, branch: "Main", settings: DEFAULT_QUEUE_SETTINGS },
          T0,
        ),
      );
    expect(second).toBe(false);
  });

  it("saves a step's state, commands and projections together", async () => {
    const { state } = await aQueue();
    const result = await saveSubmission(state, T0 + 1000);

    const loaded = await loadQueueState(store.db, state.queueId);
    expect(loaded).toMatchObject({ version: 2, nextCommandSeq: 1 + result.commands.length });
    expect(loaded?.state).toEqual(result.state);

    const submissions = await listSubmissions(store.db, state.queueId, { take: 10 });
    expect(submissions.records).toEqual([
      expect.objectContaining({ prNumber: 12, state: "testing", isCurrentlySubmittedToQueue: true }),
    ]);
    const transitions = await store.db
      .selectFrom("pull_request_transitions")
      .select(["state", "reason"])
      .orderBy("seq")
      .execute();
    expect(transitions.map((t) => t.state)).toEqual(result.state.prs[12]!.history.map((h) => h.state));
    const runs = await store.db.selectFrom("test_runs").select(["id", "status", "queue_id"]).execute();
    expect(runs).toEqual([
      { id: result.state.prs[12]!.testRunId, status: "in_progress", queue_id: state.queueId },
    ]);
    const queueRow = await store.db
      .selectFrom("queues")
      .select(["required_statuses"])
      .executeTakeFirstOrThrow();
    expect(queueRow.required_statuses).toBe('["ci"]');
  });

  it("shows a run saved before bisection existed as a main-line run", async () => {
    const { state } = await aQueue();
    const { testRunId } = (await saveSubmission(state)).state.prs[12]!;
    const saved = JSON.parse(
      (await store.db.selectFrom("test_runs").select("record").executeTakeFirstOrThrow()).record,
    );
    expect(saved).toMatchObject({ purpose: "main", followsUpRunId: null });
    const { purpose: _purpose, followsUpRunId: _followsUpRunId, ...older } = saved;
    await store.db
      .updateTable("test_runs")
      .set({ record: JSON.stringify(older) })
      .execute();
    expect(await findTestRunRecord(store.db, state.queueId, testRunId!)).toEqual({
      ...older,
      purpose: "main",
      followsUpRunId: null,
    });
  });

  it("hands out each lane of a queue's commands one at a time, in order, to one worker at a time", async () => {
    const { state } = await aQueue();
    const first = await saveSubmission(state);
    // A second PR waits behind the first: its status is the notification lane's second command.
    const second = await saveSubmission(first.state, T0, undefined, 13);
    const commands = [...first.commands, ...second.commands];
    expect(commands.map(laneOf)).toEqual(["effects", "notifications", "notifications"]);
    expect(await queuesWithDueCommands(store.db, T0)).toEqual([state.queueId]);
    const claim = (lane: OutboxLane, now: number, holder = "worker-1") =>
      claimNextCommand(store.db, state.queueId, lane, { holder, now, leaseMs: 60_000 });
    const branch = await claim("effects", T0);
    expect(branch?.command).toEqual(commands[0]);
    // The other lane goes on beside it.
    const status = await claim("notifications", T0);
    expect(status?.command).toEqual(commands[1]);
    // Claimed: nobody else gets it, nor the command behind it, until it completes or the lease lapses.
    expect(await claim("notifications", T0 + 1, "worker-2")).toBeUndefined();
    expect(await claim("effects", T0 + 60_001, "worker-2")).toMatchObject({ id: branch?.id });
    await completeCommand(store.db, status!.id, T0 + 2);
    expect((await claim("notifications", T0 + 3, "worker-2"))?.command).toEqual(commands[2]);
  });

  it("a heartbeat renews only its holder's claims", async () => {
    const { state } = await aQueue();
    await saveSubmission(state);
    const lease = { now: T0, leaseMs: 15_000 };
    const branch = await claimNextCommand(store.db, state.queueId, "effects", { holder: "alive", ...lease });
    const status = await claimNextCommand(store.db, state.queueId, "notifications", {
      holder: "dead",
      ...lease,
    });
    const renewal = { holder: "alive", now: T0 + 10_000, leaseMs: 15_000 };
    await renewClaims(store.db, [branch!.id, status!.id], renewal);
    const at = T0 + 20_000;
    expect(
      await claimNextCommand(store.db, state.queueId, "effects", { holder: "other", ...lease, now: at }),
    ).toBeUndefined();
    expect(
      await claimNextCommand(store.db, state.queueId, "notifications", {
        holder: "other",
        ...lease,
        now: at,
      }),
    ).toBeDefined();
    expect(await completeCommand(store.db, branch!.id, at)).toBe(true);
    // Completing it again (a replica whose claim had lapsed) reports that someone else did.
    expect(await completeCommand(store.db, branch!.id, at)).toBe(false);
  });

  it("purges completed commands and old deliveries, keeping pending commands", async () => {
    const { state } = await aQueue();
    const result = await saveSubmission(state, T0, async (trx) => {
      await recordDelivery(trx, "old:q", "status", T0);
    });
    const first = (await claimNextCommand(store.db, state.queueId, "effects", {
      holder: "worker-1",
      now: T0,
      leaseMs: 60_000,
    }))!;
    await completeCommand(store.db, first.id, T0);
    await purgeCompletedCommands(store.db, T0 + 1);
    await purgeDeliveries(store.db, T0 + 1);
    const left = await store.db.selectFrom("outbox_commands").select("id").execute();
    expect(left).toHaveLength(result.commands.length - 1);
    expect(await store.db.selectFrom("webhook_deliveries").selectAll().execute()).toEqual([]);
  });

  it("records a webhook delivery once", async () => {
    const first = await store.db.transaction().execute((trx) => recordDelivery(trx, "d1:q", "status", T0));
    const again = await store.db.transaction().execute((trx) => recordDelivery(trx, "d1:q", "status", T0));
    expect([first, again]).toEqual([true, false]);
  });

  it("deleting a queue deletes its state, commands and projections", async () => {
    const { state } = await aQueue();
    await saveSubmission(state, T0, async (trx) => {
      await deleteQueueRow(trx, state.queueId);
    });
    for (const table of [
      "queue_states",
      "outbox_commands",
      "test_runs",
      "pull_request_submissions",
    ] as const) {
      expect(await store.db.selectFrom(table).selectAll().execute()).toEqual([]);
    }
  });
});
