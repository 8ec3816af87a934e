import { describe, expect, it } from "vitest";
import { commentMarker } from "../../src/queue/index.ts";
import { aCheckRun, aScenario } from "../support/queue-factories.ts";

describe("GitHub-side notifications", () => {
  it("sets the queue's commit status on the PR head, pending while queued", () => {
    const queue = aScenario({}, "paused");

    queue.submit(1);

    expect(queue.commandsOf("set_commit_status")).toEqual([
      {
        type: "set_commit_status",
        key: "commit-status:sub-1:1",
        prNumber: 1,
        sha: "head-1",
        context: "Switchyard Merge Queue (main)",
        state: "pending",
        description: "Queued at position 1: Submitted. Ready to be tested.",
      },
    ]);
  });

  it("reports success when merged, failure when failed and error when cancelled", () => {
    const merged = aScenario().submit(1).pass(1).mergeSucceeds();
    const failed = aScenario().submit(1).fail(1);
    const cancelled = aScenario().submit(1);
    cancelled.on({ type: "cancel_requested", prNumber: 1, reason: "cancelled_by_user" });

    expect(
      [merged, failed, cancelled].map((queue) => queue.commandsOf("set_commit_status").at(-1)?.state),
    ).toEqual(["success", "failure", "error"]);
  });

  it("sends one update per PR and step, for its final state", () => {
    const queue = aScenario({ statusCheckEnabled: true });
    const commentOnly = aScenario({ statusCheckEnabled: false });

    queue.submit(1);
    commentOnly.submit(1);

    expect(queue.commandsOf("set_commit_status")).toEqual([
      expect.objectContaining({ key: "commit-status:sub-1:2", description: "Testing in run q-1" }),
    ]);
    expect(commentOnly.commandsOf("upsert_pr_comment")).toEqual([
      expect.objectContaining({ key: "pr-comment:sub-1:2" }),
    ]);
  });

  it("keeps one comment per submission, marked with the submission id, showing state, position and run", () => {
    const queue = aScenario({ concurrency: 2, statusCheckEnabled: false }).submit(1, 2);

    const comment = queue.commandsOf("upsert_pr_comment")[0];

    expect(comment).toMatchObject({ key: "pr-comment:sub-2:2", prNumber: 2, submissionId: "sub-2" });
    expect(comment?.body.startsWith(commentMarker("sub-2"))).toBe(true);
    expect(comment?.body).toContain("**Testing** (position 2 of 2)");
    expect(comment?.body).toContain("Latest test run: `q-2` on branch `mq/main/q-2`.");
  });

  it("leaves a course with no news to the commit status: no comment, and its end only edits one posted before", () => {
    const queue = aScenario().submit(1);
    const testing = queue.commandsOf("upsert_pr_comment");
    const passed = queue.pass(1).commandsOf("upsert_pr_comment");
    const merged = queue.mergeSucceeds().commandsOf("upsert_pr_comment");
    const withoutStatus = aScenario({ statusCheckEnabled: false }).submit(1);

    expect([...testing, ...passed]).toEqual([]);
    // Posted in parallel mode for the PR's lane, a comment would say "Testing" still: the end is edited into it.
    expect(merged).toEqual([
      expect.objectContaining({ editOnly: true, body: expect.stringContaining("**Merged**") }),
    ]);
    expect(merged[0]?.body).not.toContain("Its progress shows");
    // Without a commit status, the comment is all the PR shows: every change is posted or edited into it.
    expect(withoutStatus.commandsOf("upsert_pr_comment")).toEqual([
      expect.objectContaining({ progress: false, editOnly: false }),
    ]);
  });

  it("in parallel mode, posts the comment on submission: it tells the PR's lane, which no status shows", () => {
    const queue = aScenario({ mode: "parallel" }).submit(1);

    expect(queue.commandsOf("upsert_pr_comment")).toEqual([
      expect.objectContaining({ editOnly: false, body: expect.stringContaining("Its progress shows") }),
    ]);
  });

  it("edits a setback into the comment: a PR tested again after its batch failed", () => {
    const queue = aScenario({ batch: true, batchingMinSize: 2 }).submit(1, 2);
    queue.fail(1);

    const bisecting = queue.commandsOf("upsert_pr_comment").find((command) => command.prNumber === 1);

    expect(bisecting).toMatchObject({
      progress: false,
      editOnly: false,
      body: expect.stringContaining("Bisecting run q-1"),
    });
  });

  it("says on failure why, and what to do", () => {
    const queue = aScenario().submit(1).fail(1);

    const body = queue.commandsOf("upsert_pr_comment")[0]?.body;

    expect(body).toContain("**Failed**");
    expect(body).toContain("Required status ci failed: https://ci.example/1");
    expect(body).toContain(
      "**What to do:** Look at the failed status above, fix it, push, and submit it again with `/merge`.",
    );
  });

  it("tells how to configure required statuses when there are none", () => {
    const queue = aScenario({ requiredStatuses: null }).submit(1);

    queue.on({ type: "required_statuses_resolved", runId: "q-1", statuses: [], source: "service_config" });

    expect(queue.commandsOf("upsert_pr_comment")[0]?.body).toContain(
      "Set `merge.required_statuses` in `.github/switchyard.yml`",
    );
  });

  it("shows a PR testing only once its run knows its required statuses, never a test that never was", () => {
    const none = aScenario({ requiredStatuses: null }).submit(1);
    const some = aScenario({ requiredStatuses: null }).submit(1);
    expect(none.commandsOf("upsert_pr_comment")).toEqual([]);
    expect(none.commandsOf("set_commit_status")).toEqual([]);

    none.on({ type: "required_statuses_resolved", runId: "q-1", statuses: [], source: "service_config" });
    some.on({ type: "required_statuses_resolved", runId: "q-1", statuses: ["ci"], source: "service_config" });

    expect(none.commandsOf("upsert_pr_comment").map((command) => command.body)).toEqual([
      expect.stringContaining("**Failed**"),
    ]);
    // Testing, for the first time, is no news for a comment: the status shows it.
    expect(some.commandsOf("upsert_pr_comment")).toEqual([]);
    expect(some.commandsOf("set_commit_status")).toEqual([
      expect.objectContaining({ state: "pending", description: "Testing in run q-1" }),
    ]);
  });

  it("sends no comment and no commit status when both are disabled", () => {
    const queue = aScenario({ commentsEnabled: false, statusCheckEnabled: false });

    queue.submit(1);

    expect(queue.commands.map((command) => command.type)).toEqual(["create_test_branch"]);
  });

  it("keeps commit status descriptions within GitHub's 140 characters", () => {
    const queue = aScenario().submit(1);

    queue.report(1, aCheckRun({ conclusion: "failure", url: `https://ci.example/${"x".repeat(200)}` }));

    expect(queue.commandsOf("set_commit_status")[0]?.description).toHaveLength(140);
  });
});
