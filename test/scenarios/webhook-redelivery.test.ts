// docs/queue.md#reliability: GitHub redelivers webhooks (same delivery id) and delivers them out of order; a webhook
// processed once changes nothing the second time: no write to GitHub, the same queue state.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { testDialects } from "../support/database.ts";
import { repoRef as repo, type Scenario, startScenario } from "../support/queue-scenario.ts";
import { claimDelivery } from "../../src/store/deliveries.ts";
import { deliverWebhook } from "../support/webhooks.ts";

describe.each(testDialects)("webhooks delivered again on %s", (dialect) => {
  let s: Scenario;
  beforeEach(async () => {
    s = await startScenario({ dialect });
    s.repo.setPermission("alice", "write");
  });
  afterEach(async () => {
    expect(s.fake.unhandled).toEqual([]);
    await s.close();
  });

  const record = async (number: number) =>
    (await s.api("getSubmittedPullRequest", { repo, targetBranch: "main", pr: { number } })).body;
  const testedSha = async (number: number) =>
    (
      await s.api("getMergeQueueTestingDetails", {
        repo,
        targetBranch: "main",
        testRunId: (await record(number)).testRunId,
      })
    ).body.testBranchSha as string;
  const queueState = async () =>
    s.server.engine.read((await s.store.db.selectFrom("queues").select("id").executeTakeFirstOrThrow()).id);
  /** The calls that change something on GitHub, from the `from`th on. */
  const writesSince = (from: number) =>
    s.fake.requests.slice(from).filter((request) => request.method !== "GET");

  it("every kind, redelivered after the PRs merged or left, writes nothing to GitHub and changes no state", async () => {
    await s.api("createQueue", { repo, targetBranch: "main", requiredStatuses: ["ci", "build"] });
    s.repo.openPullRequest({ number: 1, title: "One", author: "alice", files: { "src/one.ts": "1\n" } });
    s.repo.openPullRequest({ number: 2, title: "Two", author: "alice", files: { "src/two.ts": "2\n" } });
    s.repo.comment(1, "alice", "/merge");
    s.repo.comment(2, "alice", "/merge");
    await s.settle();
    const sha = await testedSha(1);
    s.repo.reportStatus(sha, "ci", "pending");
    s.repo.reportStatus(sha, "ci", "success");
    s.repo.reportCheckRun(sha, "build", { status: "in_progress" });
    s.repo.reportCheckRun(sha, "build", { conclusion: "success" });
    await s.settle();
    s.repo.pushToPullRequest(2, { "src/two.ts": "2 again\n" });
    s.repo.closePullRequest(2);
    await s.settle();
    expect(await record(1)).toMatchObject({ state: "merged" });
    expect(await record(2)).toMatchObject({ state: "cancelled", stateReason: "pr_updated" });
    const kinds = new Set(s.fake.webhooks.map((webhook) => webhook.name));
    expect([...kinds].sort()).toEqual([
      "check_run",
      "check_suite",
      "issue_comment",
      "pull_request",
      "push",
      "status",
    ]);

    const before = { state: await queueState(), requests: s.fake.requests.length };
    // Newest first: each one is both a redelivery and out of order.
    for (const webhook of [...s.fake.webhooks].reverse()) {
      const response = await deliverWebhook(s.server.url, webhook.name, webhook.payload, webhook.id);
      expect(response.status).toBe(200);
    }
    await s.server.engine.settle();
    expect(writesSince(before.requests)).toEqual([]);
    expect(await queueState()).toEqual(before.state);
    // #2's cancellation is news, in one comment; #1's course had none, and its status showed it.
    const ofApp = (number: number) =>
      s.repo.comments(number).filter((comment) => comment.author === s.fake.appLogin);
    expect(ofApp(2)).toHaveLength(1);
    expect(ofApp(1)).toEqual([]);
  });

  it("a /merge comment delivered twice while the PR is queued reacts and queues it once", async () => {
    await s.api("createQueue", { repo, targetBranch: "main", requiredStatuses: ["ci"] });
    s.repo.openPullRequest({ number: 1, title: "One", author: "alice", files: { "src/one.ts": "1\n" } });
    const delivery = s.repo.comment(1, "alice", "/merge");
    await s.settle();
    const before = { state: await queueState(), requests: s.fake.requests.length };
    await deliverWebhook(s.server.url, delivery.name, delivery.payload, delivery.id);
    await s.server.engine.settle();
    expect(writesSince(before.requests)).toEqual([]);
    expect(await queueState()).toEqual(before.state);
    expect(s.repo.reactions(delivery.payload.comment.id)).toHaveLength(1);
  });

  it("a push's webhook arriving after the PR was queued again at the pushed head leaves the new submission", async () => {
    await s.api("createQueue", { repo, targetBranch: "main", requiredStatuses: ["ci"] });
    s.repo.openPullRequest({ number: 1, title: "One", author: "alice", files: { "src/one.ts": "1\n" } });
    const submit = () => s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number: 1 } });
    await submit();
    await s.settle();
    const push = s.repo.pushToPullRequest(1, { "src/one.ts": "1 again\n" });
    s.fake.takeWebhooks();
    await s.api("cancelPullRequest", { repo, targetBranch: "main", pr: { number: 1 } });
    await submit();
    await s.settle();
    await deliverWebhook(s.server.url, push.name, push.payload, push.id);
    await s.settle();
    expect(await record(1)).toMatchObject({ state: "testing", prSha: s.repo.pullRequest(1).headSha });
  });

  it("a webhook whose handling failed is handled when GitHub delivers it again", async () => {
    await s.api("createQueue", { repo, targetBranch: "main", requiredStatuses: ["ci"] });
    s.repo.openPullRequest({ number: 1, title: "One", author: "alice", files: { "src/one.ts": "1\n" } });
    s.fake.failNext({ method: "GET", path: "/repos/acme/widgets/pulls/1", status: 403 });
    const delivery = s.repo.comment(1, "alice", "/merge");
    s.fake.takeWebhooks();
    const failed = await deliverWebhook(s.server.url, delivery.name, delivery.payload, delivery.id);
    // 500 whatever GitHub answered the handler: GitHub shows the delivery as failed, so that it is delivered again.
    expect(failed.status).toBe(500);
    expect((await record(1)).state).toBeUndefined();
    await deliverWebhook(s.server.url, delivery.name, delivery.payload, delivery.id);
    await s.settle();
    expect(await record(1)).toMatchObject({ state: "testing" });
  });

  it("a copy arriving while a replica that died was handling the delivery is not acknowledged; once that claim lapsed it is handled", async () => {
    await s.api("createQueue", { repo, targetBranch: "main", requiredStatuses: ["ci"] });
    s.repo.openPullRequest({ number: 1, title: "One", author: "alice", files: { "src/one.ts": "1\n" } });
    const delivery = s.repo.comment(1, "alice", "/merge");
    s.fake.takeWebhooks();
    // The replica that received it first claimed it and was killed before it finished.
    const key = `${delivery.id}/issue_comment.created`;
    await claimDelivery(s.store.db, key, delivery.name, s.clock.now, 60_000);

    const copy = await deliverWebhook(s.server.url, delivery.name, delivery.payload, delivery.id);
    expect(copy.status).toBe(503);
    expect(await copy.json()).toMatchObject({ code: "delivery_in_progress" });
    expect((await record(1)).state).toBeUndefined();

    s.clock.now += 61_000;
    const redelivered = await deliverWebhook(s.server.url, delivery.name, delivery.payload, delivery.id);
    expect(redelivered.status).toBe(200);
    await s.settle();
    expect(await record(1)).toMatchObject({ state: "testing" });
    expect(s.repo.reactions(delivery.payload.comment.id)).toHaveLength(1);
  });

  it("CI results are recorded once per queue they changed, with no claim of the delivery; copies change nothing", async () => {
    await s.api("createQueue", { repo, targetBranch: "main", requiredStatuses: ["ci"] });
    s.repo.openPullRequest({ number: 1, title: "One", author: "alice", files: { "src/one.ts": "1\n" } });
    await s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number: 1 } });
    await s.settle();
    const sha = await testedSha(1);
    const status = s.repo.reportStatus(sha, "lint", "pending");
    const [check] = s.repo.reportCheckRun(sha, "build", { status: "in_progress" });
    s.fake.takeWebhooks();
    const deliverTwice = (webhook: { id: string; name: string; payload: unknown }) =>
      Array.from({ length: 2 }, () =>
        deliverWebhook(s.server.url, webhook.name, webhook.payload, webhook.id),
      );

    const answers = await Promise.all([...deliverTwice(status), ...deliverTwice(check!)]);
    const after = await queueState();
    await deliverWebhook(s.server.url, status.name, status.payload, status.id);

    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect(await queueState()).toEqual(after);
    const recorded = await s.store.db.selectFrom("webhook_deliveries").select("id").orderBy("id").execute();
    const queueId = after!.queueId;
    expect(
      recorded.map((row) => row.id).filter((id) => id.startsWith(status.id) || id.startsWith(check!.id)),
    ).toEqual([`${check!.id}:${queueId}`, `${status.id}:${queueId}`].sort());
    const run = after!.runs[(await record(1)).testRunId]!;
    expect(Object.keys(run.reports).sort()).toEqual(["check_run:build", "status:lint"]);
  });

  it("an older status delivered after a newer one for the same context does not take the check back", async () => {
    await s.api("createQueue", { repo, targetBranch: "main", requiredStatuses: ["ci", "build"] });
    s.repo.openPullRequest({ number: 1, title: "One", author: "alice", files: { "src/one.ts": "1\n" } });
    await s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number: 1 } });
    await s.settle();
    const sha = await testedSha(1);
    const pending = s.repo.reportStatus(sha, "ci", "pending");
    const success = s.repo.reportStatus(sha, "ci", "success");
    // GitHub sent both; they arrive newest first.
    s.fake.takeWebhooks();
    for (const webhook of [success, pending]) {
      await deliverWebhook(s.server.url, webhook.name, webhook.payload, webhook.id);
    }
    await s.server.engine.settle();
    s.repo.reportStatus(sha, "build", "success");
    await s.settle();
    expect(await record(1)).toMatchObject({ state: "merged" });
  });
});
