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

  it("removing a repository from the installation keeps its queue readable, and a new queue asks GitHub again", async () => {
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
    // The queue's records stay readable without asking GitHub (strict nock: any request would fail the test).
    expect((await server.post("getQueue", { repo, targetBranch: "main" }, token)).status).toBe(200);

    nock("https://api.github.com")
      .get("/repos/acme/widgets/installation")
      .reply(404, { message: "Not Found" });
    const refused = await server.post("createQueue", { repo, targetBranch: "release" }, token);
    expect(((await refused.json()) as any).code).toBe("repo_not_installed");

    nock("https://api.github.com").get("/repos/acme/widgets/installation").reply(200, { id: 100 });
    nock("https://api.github.com")
      .post("/app/installations/100/access_tokens")
      .reply(201, { token: "ghs_test", expires_at: "2099-01-01T00:00:00Z" });
    nock("https://api.github.com")
      .get(`/repos/acme/widgets/git/ref/${encodeURIComponent("heads/release")}`)
      .reply(404, { message: "Not Found" });
    const reinstalled = await server.post("createQueue", { repo, targetBranch: "release" }, token);
    expect(reinstalled.status).toBe(200);
  });

  it("a command asks GitHub again once the installation it knows is an hour old, and keeps it if GitHub is down", async () => {
    await deliverWebhook(server.url, "installation", {
      action: "created",
      installation,
      sender,
      repositories: [{ id: 10, name: "widgets", full_name: "acme/widgets", private: true }],
    });
    const [row] = await store.db.selectFrom("repositories").select("updated_at").execute();
    await store.db
      .updateTable("repositories")
      .set({ updated_at: Number(row?.updated_at) - 2 * 3600 * 1000 })
      .execute();
    nock("https://api.github.com").get("/repos/acme/widgets/installation").reply(500, { message: "down" });
    mainBranchReadable();
    expect((await server.post("createQueue", { repo, targetBranch: "main" }, token)).status).toBe(200);

    nock("https://api.github.com")
      .get("/repos/acme/widgets/installation")
      .reply(404, { message: "Not Found" });
    const removed = await server.post("createQueue", { repo, targetBranch: "release" }, token);
    expect(((await removed.json()) as any).code).toBe("repo_not_installed");
    const [forgotten] = await store.db.selectFrom("repositories").select("installation_id").execute();
    expect(forgotten?.installation_id).toBeNull();
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
