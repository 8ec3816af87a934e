// createPrsForTestingBranches end to end (docs/queue.md#testing): each run gets a draft PR from its test branch into main,
// titled after the PRs under test and linking them, so CI that builds only pull requests tests it; it is closed
// and its branch deleted when the run ends.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { statusCommentsOn } from "../../src/edge-ports.ts";
import { GitHubCommandExecutor } from "../../src/github/github-commands.ts";
import { GitHubGateway } from "../../src/github/gateway.ts";
import type { QueueCommand } from "../../src/queue/index.ts";
import { queueLocation } from "../../src/store/queue-locations.ts";
import { testDialects } from "../support/database.ts";
import { testProbot } from "../support/github-app.ts";
import { repoRef as repo, type Scenario, startScenario } from "../support/queue-scenario.ts";

describe.each(testDialects)("test branches' draft PRs on %s", (dialect) => {
  let s: Scenario;
  beforeEach(async () => {
    s = await startScenario({ dialect });
    await s.api("createQueue", {
      repo,
      targetBranch: "main",
      requiredStatuses: ["ci"],
      createPrsForTestingBranches: true,
      concurrency: 2,
    });
    for (const number of [1, 2]) {
      s.repo.openPullRequest({
        number,
        title: `Change ${number}`,
        author: "alice",
        files: { [`src/${number}.ts`]: `${number}\n` },
      });
    }
    for (const number of [1, 2]) {
      await s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number } });
    }
    await s.settle();
  });
  afterEach(async () => {
    expect(s.fake.unhandled).toEqual([]);
    await s.close();
  });

  const runOf = async (number: number) => {
    const pr = (await s.api("getSubmittedPullRequest", { repo, targetBranch: "main", pr: { number } })).body;
    return (
      await s.api("getMergeQueueTestingDetails", { repo, targetBranch: "main", testRunId: pr.testRunId })
    ).body;
  };
  const draftOf = (testBranch: string) => {
    const draft = s.repo.pullRequests().find((pr) => pr.headRef === testBranch);
    if (draft === undefined) throw new Error(`no PR from ${testBranch}`);
    return draft;
  };

  it("opens a draft PR per run, naming and linking the PRs under test and those it is built on", async () => {
    const [run1, run2] = [await runOf(1), await runOf(2)];

    expect(draftOf(run1.testBranch)).toMatchObject({ draft: true, state: "open", baseRef: "main" });
    expect(draftOf(run1.testBranch).title).toContain("#1");
    expect(draftOf(run1.testBranch).body).toContain("Tests #1 for the merge queue of main.");
    expect(draftOf(run2.testBranch)).toMatchObject({ draft: true, state: "open", baseRef: "main" });
    expect(draftOf(run2.testBranch).title).toContain("#2");
    expect(draftOf(run2.testBranch).body).toContain("Tests #2 for the merge queue of main, on top of #1.");
    // The queue's own PRs are not queued: only the two PRs are in it.
    const queue = (await s.api("getQueue", { repo, targetBranch: "main" })).body;
    expect(queue.enqueuedPullRequests.map((pr: { prNumber: number }) => pr.prNumber)).toEqual([1, 2]);
  });

  it("closes the draft PR and deletes the test branch when the run passes and its PR merged", async () => {
    const run = await runOf(1);

    s.repo.reportStatus(run.testBranchSha, "ci", "success");
    await s.settle();

    expect(s.repo.pullRequest(1).merged).toBe(true);
    expect(draftOf(run.testBranch)).toMatchObject({ state: "closed", merged: false });
    expect(s.repo.branch(run.testBranch)).toBeUndefined();
  });

  it("closes the draft PR and deletes the test branch when the run fails", async () => {
    const run = await runOf(1);

    s.repo.reportStatus(run.testBranchSha, "ci", "failure");
    await s.settle();

    expect(draftOf(run.testBranch)).toMatchObject({ state: "closed", merged: false });
    expect(s.repo.branch(run.testBranch)).toBeUndefined();
    // #2 is tested again without #1, with a draft PR of its own new run.
    const rerun = await runOf(2);
    expect(draftOf(rerun.testBranch)).toMatchObject({ state: "open" });
    expect(draftOf(rerun.testBranch).body).toContain("Tests #2 for the merge queue of main.");
  });

  it("opening a draft PR again (a retried command) finds it there, counts it done and opens no other", async () => {
    const run = await runOf(1);
    const rows = await s.store.db.selectFrom("outbox_commands").select(["command", "queue_id"]).execute();
    const open = rows
      .map((row) => ({ queueId: row.queue_id, command: JSON.parse(row.command) as QueueCommand }))
      .find(({ command }) => command.type === "open_test_pull_request" && command.branch === run.testBranch);
    const location = (await queueLocation(s.store.db, open!.queueId))!;
    const executor = new GitHubCommandExecutor(
      new GitHubGateway(testProbot(s.fake.fetch)),
      statusCommentsOn(s.store),
      () => s.server.config.publicUrl,
    );
    const before = s.fake.calls().length;

    expect(await executor.execute(location, open!.command)).toEqual([]);

    // GitHub answered 422 "A pull request already exists".
    expect(
      s.fake
        .calls()
        .slice(before)
        .filter((call) => call.includes("/pulls")),
    ).toEqual(["POST /repos/acme/widgets/pulls"]);
    expect(s.repo.pullRequests().filter((pr) => pr.headRef === run.testBranch)).toHaveLength(1);
  });
});
