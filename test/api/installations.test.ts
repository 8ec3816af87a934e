import nock from "nock";
import { beforeEach, describe, expect, it } from "vitest";
import { type TestServer, useTestServer } from "../support/api-server.ts";
import type { TestStore } from "../support/database.ts";
import { useNockedGitHub } from "../support/nock-github.ts";
import { deliverWebhook } from "../support/webhooks.ts";

const repo = { host: "github.com", owner: "acme", name: "widgets" };
const installation = { id: 99, account: { login: "acme", id: 1, type: "Organization" } };
const sender = { login: "octocat", id: 2, type: "User" };

/** createQueue reads the branch head as the installation. */
function mainBranchReadable(installationId = installation.id) {
  nock("https://api.github.com")
    .post(`/app/installations/${installationId}/access_tokens`)
    .reply(201, { token: "ghs_test", expires_at: "2099-01-01T00:00:00Z" });
  nock("https://api.github.com")
    .get(`/repos/acme/widgets/git/ref/${encodeURIComponent("heads/main")}`)
    .reply(200, { ref: "refs/heads/main", object: { sha: "a".repeat(40), type: "commit" } });
}

describe("installation webhooks keep the installed repositories", () => {
  useNockedGitHub({ strict: true });
  const fixture = useTestServer();
  let store: TestStore;
  let server: TestServer;
  let token: string;
  beforeEach(() => ({ store, server, token } = fixture));

  it("an installation makes its repositories usable without asking GitHub", async () => {
    const delivered = await deliverWebhook(server.url, "installation", {
      action: "created",
      installation,
      sender,
      repositories: [{ id: 10, name: "widgets", full_name: "acme/widgets", private: true }],
    });
    expect(delivered.status).toBe(200);
    mainBranchReadable();
    expect((await server.post("createQueue", { repo, targetBranch: "main" }, token)).status).toBe(200);
  });

  it("removing a repository from the installation keeps its queue but makes the API ask GitHub again", async () => {
    await deliverWebhook(server.url, "installation_repositories", {
      action: "added",
      installation,
      sender,
      repository_selection: "selected",
      repositories_added: [{ id: 10, name: "widgets", full_name: "acme/widgets", private: true }],
      repositories_removed: [],
    });
    mainBranchReadable();
    expect((await server.post("createQueue", { repo, targetBranch: "main" }, token)).status).toBe(200);
    await deliverWebhook(server.url, "installation_repositories", {
      action: "removed",
      installation,
      sender,
      repository_selection: "selected",
      repositories_added: [],
      repositories_removed: [{ id: 10, name: "widgets", full_name: "acme/widgets", private: true }],
    });
    nock("https://api.github.com")
      .get("/repos/acme/widgets/installation")
      .reply(404, { message: "Not Found" });
    const response = await server.post("getQueue", { repo, targetBranch: "main" }, token);
    expect(((await response.json()) as any).code).toBe("repo_not_installed");

    nock("https://api.github.com").get("/repos/acme/widgets/installation").reply(200, { id: 100 });
    const reinstalled = await server.post("getQueue", { repo, targetBranch: "main" }, token);
    expect(reinstalled.status).toBe(200);
  });

  it("uninstalling the app forgets every repository of the installation", async () => {
    await deliverWebhook(server.url, "installation", {
      action: "created",
      installation,
      sender,
      repositories: [{ id: 10, name: "widgets", full_name: "acme/widgets", private: true }],
    });
    await deliverWebhook(server.url, "installation", { action: "deleted", installation, sender });
    nock("https://api.github.com")
      .get("/repos/acme/widgets/installation")
      .reply(404, { message: "Not Found" });
    const response = await server.post("createQueue", { repo, targetBranch: "main" }, token);
    expect(response.status).toBe(404);
  });

  it("rejects a webhook whose signature does not match", async () => {
    const response = await fetch(`${server.url}/api/github/webhooks`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-github-event": "installation",
        "x-github-delivery": "1",
        "x-hub-signature-256": "sha256=deadbeef",
      },
      body: JSON.stringify({ action: "created", installation, sender, repositories: [] }),
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(await store.db.selectFrom("repositories").selectAll().execute()).toEqual([]);
  });
});
