// After a crash or restart the queue resumes where it stopped, and commands that run twice do no harm.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { statusCommentsOn } from "../../src/edge-ports.ts";
import { GitHubCommandExecutor } from "../../src/github/github-commands.ts";
import { GitHubGateway } from "../../src/github/gateway.ts";
import type { QueueCommand } from "../../src/queue/index.ts";
import { queueLocation } from "../../src/store/queue-locations.ts";
import { testProbot } from "../support/github-app.ts";
import { repoRef as repo, type Scenario, startScenario } from "../support/queue-scenario.ts";

describe("recovery", () => {
  let s: Scenario;
  beforeEach(async () => {
    s = await startScenario();
  });
  afterEach(async () => {
    await s.close();
  });

  const record = async (number: number) =>
    (await s.api("getSubmittedPullRequest", { repo, targetBranch: "main", pr: { number } })).body;

  it("a command GitHub refused is retried after a restart, once, and the queue goes on", async () => {
    await s.api("createQueue", { repo, targetBranch: "main", requiredStatuses: ["ci"] });
    s.repo.openPullRequest({
      number: 1,
      title: "Change 1",
      author: "alice",
      files: { "src/one.ts": "one\n" },
    });
    s.fake.failNext({ method: "POST", path: "/repos/acme/widgets/git/refs", status: 502, times: 1 });
    await s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number: 1 } });
    await s.settle();
    expect(s.repo.branches().filter((b) => b.startsWith("mq/"))).toEqual([]);

    await s.restart();
    s.clock.now += 60_000;
    await s.poll();

    const pr = await record(1);
    const testBranches = s.repo.branches().filter((b) => b.startsWith("mq/"));
    expect(testBranches).toEqual([`mq/main/${pr.testRunId}`]);
    const run = (
      await s.api("getMergeQueueTestingDetails", { repo, targetBranch: "main", testRunId: pr.testRunId })
    ).body;
    s.repo.reportStatus(run.testBranchSha, "ci", "success");
    await s.settle();
    expect((await record(1)).state).toBe("merged");
    expect(s.fake.calls().filter((call) => call === "PUT /repos/acme/widgets/pulls/1/merge")).toHaveLength(1);
    const success = s.repo.statuses(s.repo.pullRequest(1).headSha).filter((st) => st.state === "success");
    expect(success.map((status) => status.description)).toEqual(["Merged by the merge queue"]);
  });

  it("every command of a PR's way through the queue can run twice with the same outcome", async () => {
    await s.api("createQueue", { repo, targetBranch: "main", requiredStatuses: ["ci"] });
    s.repo.openPullRequest({
      number: 1,
      title: "Change 1",
      author: "alice",
      files: { "src/one.ts": "one\n" },
    });
    s.repo.reportStatus(s.repo.pullRequest(1).headSha, "ci", "success");
    await s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number: 1 } });
    await s.settle();
    const run = (
      await s.api("getMergeQueueTestingDetails", {
        repo,
        targetBranch: "main",
        testRunId: (await record(1)).testRunId,
      })
    ).body;
    s.repo.reportStatus(run.testBranchSha, "ci", "success");
    await s.settle();
    expect((await record(1)).state).toBe("merged");

    // Replay every command the queue executed, as a worker that crashed before recording them would.
    const rows = await s.store.db
      .selectFrom("outbox_commands")
      .select(["command", "queue_id"])
      .orderBy("seq")
      .execute();
    const location = (await queueLocation(s.store.db, rows[0]!.queue_id))!;
    const probot = testProbot(s.fake.fetch);
    const executor = new GitHubCommandExecutor(
      new GitHubGateway(probot),
      statusCommentsOn(s.store),
      () => s.server.config.publicUrl,
    );
    const mainBefore = s.repo.branch("main");
    const commentsBefore = s.repo.comments(1).length;
    for (const { command } of rows) {
      const parsed = JSON.parse(command) as QueueCommand;
      const events = await executor.execute(location, parsed);
      if (parsed.type === "merge_pull_request")
        expect(events).toEqual([expect.objectContaining({ type: "merge_succeeded" })]);
    }
    expect(s.repo.branch("main")).toBe(mainBefore);
    expect(s.repo.comments(1)).toHaveLength(commentsBefore);
    expect(s.repo.log("main").filter((message) => message.startsWith("Change 1"))).toHaveLength(1);
  });

  it("a fast-forward retried after someone pushed on top of it reports the merge it made", async () => {
    await s.api("createQueue", {
      repo,
      targetBranch: "main",
      requiredStatuses: ["ci"],
      mergeMethod: "merge_commit",
    });
    s.repo.openPullRequest({
      number: 1,
      title: "Change 1",
      author: "alice",
      files: { "src/one.ts": "one\n" },
    });
    await s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number: 1 } });
    await s.settle();
    const { testRunId } = await record(1);
    const run = (await s.api("getMergeQueueTestingDetails", { repo, targetBranch: "main", testRunId })).body;
    s.repo.reportStatus(run.testBranchSha, "ci", "success");
    await s.settle();
    expect(s.repo.branch("main")).toBe(run.testBranchSha);

    // The answer to the fast-forward was lost; someone pushed on top before the worker tried it again.
    const pushed = s.repo.commit("main", { "docs/later.md": "later\n" });
    const rows = await s.store.db.selectFrom("outbox_commands").select(["command", "queue_id"]).execute();
    const fastForward = rows
      .map((row) => ({ ...row, parsed: JSON.parse(row.command) as QueueCommand }))
      .find((row) => row.parsed.type === "fast_forward_target")!;
    const executor = new GitHubCommandExecutor(
      new GitHubGateway(testProbot(s.fake.fetch)),
      statusCommentsOn(s.store),
      () => s.server.config.publicUrl,
    );
    const location = (await queueLocation(s.store.db, fastForward.queue_id))!;

    expect(await executor.execute(location, fastForward.parsed)).toEqual([
      expect.objectContaining({ type: "merge_succeeded", sha: run.testBranchSha }),
    ]);
    expect(s.repo.branch("main")).toBe(pushed);
  });
});
