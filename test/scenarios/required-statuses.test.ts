// Required statuses end to end (docs/queue.md#required-statuses): with none anywhere there is nothing to test, so the PR fails at
// once, no test branch is built, and GitHub never shows it testing.
import { afterEach, describe, expect, it } from "vitest";
import { testDialects } from "../support/database.ts";
import {
  type GitHubWrite,
  recordWrites,
  repoRef as repo,
  type Scenario,
  startScenario,
} from "../support/queue-scenario.ts";

describe.each(testDialects)("required statuses on %s", (dialect) => {
  let s: Scenario;
  let writes: GitHubWrite[];

  afterEach(async () => {
    expect(s.fake.unhandled).toEqual([]);
    await s.close();
  });

  it("with none anywhere, fails the PR without building a test branch or ever showing it testing", async () => {
    const recorder = recordWrites();
    writes = recorder.writes;
    s = await startScenario({ dialect, whileAppWaits: recorder.whileAppWaits });
    s.repo.setPermission("alice", "write");
    await s.api("createQueue", { repo, targetBranch: "main" });
    s.repo.openPullRequest({
      number: 1,
      title: "Change 1",
      author: "alice",
      files: { "src/one.ts": "one\n" },
    });

    await s.api("submitPullRequest", { repo, targetBranch: "main", pr: { number: 1 } });
    await s.settle();

    const record = await s.api("getSubmittedPullRequest", { repo, targetBranch: "main", pr: { number: 1 } });
    expect(record.body).toMatchObject({ state: "failed", stateReason: "no_required_statuses" });
    // Nothing is built; the run only makes sure no branch of it is left.
    const built = writes.filter(
      (write) => (write.path.startsWith("/git/") && write.method !== "DELETE") || write.path === "/merges",
    );
    expect(built).toEqual([]);
    const shown = writes
      .filter((write) => /\/(comments|statuses)(\/|$)/.test(write.path))
      .map((write) => String(write.body.body ?? write.body.description));
    expect(shown.filter((text) => /testing/i.test(text))).toEqual([]);
    const [comment] = s.repo.comments(1).filter((c) => c.author === s.fake.appLogin);
    expect(comment?.body).toContain("**Failed**");
    expect(comment?.body).toContain("Set `merge.required_statuses` in `.github/switchyard.yml`");
  });
});
