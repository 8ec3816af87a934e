// The `/merge` comment handler, the Probot way: a real-shaped webhook in, the exact GitHub calls out.
import nock from "nock";
import { beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_QUEUE_SETTINGS, initialQueueState } from "../../src/queue/index.ts";
import { insertQueue } from "../../src/store/queues.ts";
import { insertQueueState } from "../../src/store/queue-states.ts";
import { rememberRepository } from "../../src/store/repositories.ts";
import { type TestServer, useTestServer } from "../support/api-server.ts";
import type { TestStore } from "../support/database.ts";
import { githubApi as api, useNockedGitHub } from "../support/nock-github.ts";
import { deliverWebhook } from "../support/webhooks.ts";

const headSha = "1".repeat(40);

function commentPayload(body: string, login: string) {
  return {
    action: "created",
    installation: { id: 4242 },
    repository: {
      id: 1,
      name: "widgets",
      full_name: "acme/widgets",
      owner: { login: "acme" },
      private: true,
    },
    issue: {
      number: 7,
      title: "Add widgets",
      pull_request: { url: `${api}/repos/acme/widgets/pulls/7` },
      user: { login },
    },
    comment: { id: 555, body, user: { login, type: "User" } },
    sender: { login, type: "User" },
  };
}

const pullRequest = {
  number: 7,
  title: "Add widgets",
  state: "open",
  draft: false,
  merged: false,
  mergeable: true,
  mergeable_state: "clean",
  user: { login: "alice" },
  head: { sha: headSha, ref: "feature" },
  base: { ref: "main", sha: "0".repeat(40) },
};

describe("/merge comments", () => {
  useNockedGitHub({ strict: true });
  const fixture = useTestServer();
  let store: TestStore;
  let server: TestServer;

  beforeEach(async () => {
    ({ store, server } = fixture);
    const repository = await rememberRepository(
      store.db,
      { host: "github.com", owner: "acme", name: "widgets", installationId: 4242 },
      1,
    );
    // Paused, so the submission changes only the PR's status and comment.
    const state = initialQueueState({
      queueId: "q1",
      targetBranch: "main",
      targetHeadSha: "0".repeat(40),
      testBranchPrefix: "mq/",
      settings: DEFAULT_QUEUE_SETTINGS,
      status: "paused",
    });
    await store.db.transaction().execute(async (trx) => {
      await insertQueue(
        trx,
        { id: "q1", repositoryId: repository.id, branch: "main", settings: DEFAULT_QUEUE_SETTINGS },
        1,
      );
      await insertQueueState(trx, state, 1);
    });
    nock(api)
      .post("/app/installations/4242/access_tokens")
      .reply(201, { token: "ghs_test", expires_at: "2099-01-01T00:00:00Z" });
    nock(api).get("/repos/acme/widgets/pulls/7").reply(200, pullRequest);
  });

  // No comment: the reaction answers the command and the status shows the PR's course (docs/queue.md#what-the-pr-shows).
  it("queues the PR for a writer: a reaction and a pending status on the head", async () => {
    nock(api)
      .get("/repos/acme/widgets/collaborators/alice/permission")
      .reply(200, { permission: "write", role_name: "write" });
    nock(api)
      .post("/repos/acme/widgets/issues/comments/555/reactions", { content: "+1" })
      .reply(201, { id: 1, content: "+1" });
    nock(api)
      .post(
        `/repos/acme/widgets/statuses/${headSha}`,
        (body) => body.context === "Switchyard Merge Queue (main)" && body.state === "pending",
      )
      .reply(201, {});

    const response = await deliverWebhook(
      server.url,
      "issue_comment",
      commentPayload("LGTM\n/merge --priority high", "alice"),
    );
    expect(response.status).toBe(200);
    await server.engine.settle();
    const state = await server.engine.read("q1");
    expect(state?.prs[7]).toMatchObject({ state: "pending", priorityValue: 10, headSha });
  });

  it("politely refuses a user without write access and queues nothing", async () => {
    nock(api)
      .get("/repos/acme/widgets/collaborators/mallory/permission")
      .reply(200, { permission: "read", role_name: "triage" });
    nock(api)
      .post("/repos/acme/widgets/issues/7/comments", (body) =>
        body.body.includes("only people with write access"),
      )
      .reply(201, { id: 901 });
    await deliverWebhook(server.url, "issue_comment", commentPayload("/merge", "mallory"));
    expect((await server.engine.read("q1"))?.prs[7]).toBeUndefined();
  });

  it("ignores a /merge inside a code block or a quote", async () => {
    nock.cleanAll();
    await deliverWebhook(server.url, "issue_comment", commentPayload("```\n/merge\n```\n> /merge", "alice"));
    expect((await server.engine.read("q1"))?.prs[7]).toBeUndefined();
  });
});
