import { pino } from "pino";
import { Probot } from "probot";
import { beforeEach, describe, expect, it } from "vitest";
import type { FakeRepository } from "../../src/sandbox/fake-github/index.ts";
import { FakeGitHub, fakeOctokit, fakeOctokitClass } from "../../src/sandbox/fake-github/index.ts";
import { testAppId, testPrivateKey } from "../support/github-app.ts";

const repoParams = { owner: "acme", repo: "widgets" };

let fake: FakeGitHub;
let repo: FakeRepository;
let octokit: ReturnType<typeof fakeOctokit>;

beforeEach(() => {
  fake = new FakeGitHub();
  repo = fake.createRepository("acme/widgets", {
    files: {
      "README.md": "hi",
      ".github/switchyard.yml": "merge:\n  required_statuses:\n    - ci\n",
      ".github/CODEOWNERS": "* @acme/core\n",
    },
    installationId: 42,
  });
  octokit = fakeOctokit(fake);
});

describe("the installation", () => {
  it("lets Probot act as the installation: token (201), then calls with it", async () => {
    const probot = new Probot({
      appId: testAppId,
      privateKey: testPrivateKey(),
      secret: "secret",
      log: pino({ level: "silent" }),
      Octokit: fakeOctokitClass(fake),
    });

    const app = await probot.auth();
    const installation = await app.rest.apps.getRepoInstallation(repoParams);
    const asInstallation = await probot.auth(installation.data.id);
    const repository = await asInstallation.rest.repos.get(repoParams);

    expect(installation.data).toMatchObject({ id: 42, account: { login: "acme" }, app_slug: "switchyard" });
    expect(repository.data).toMatchObject({
      full_name: "acme/widgets",
      default_branch: "main",
      private: false,
      html_url: "https://github.com/acme/widgets",
    });
    expect(fake.calls()).toEqual([
      "GET /repos/acme/widgets/installation",
      "POST /app/installations/42/access_tokens",
      "GET /repos/acme/widgets",
    ]);
  });

  it("answers 404 for a repository without the app, and for an unknown installation's token", async () => {
    fake.createRepository("acme/other");

    await expect(
      octokit.rest.apps.getRepoInstallation({ owner: "acme", repo: "other" }),
    ).rejects.toMatchObject({
      status: 404,
    });
    await expect(
      octokit.request("POST /app/installations/{id}/access_tokens", { id: 9 }),
    ).rejects.toMatchObject({
      status: 404,
    });
    const token = await octokit.request("POST /app/installations/{id}/access_tokens", { id: 42 });
    expect(token.status).toBe(201);
    expect(token.data).toMatchObject({
      token: expect.stringMatching(/^ghs_/),
      expires_at: expect.any(String),
    });
  });
});

describe("collaborator permissions", () => {
  it("answers the legacy permission and the role name, as GitHub does", async () => {
    const roles = ["admin", "maintain", "write", "triage", "read"] as const;
    roles.forEach((role) => repo.setPermission(`user-${role}`, role));

    const answers = await Promise.all(
      [...roles.map((role) => `user-${role}`), "stranger"].map(
        async (username) =>
          (await octokit.rest.repos.getCollaboratorPermissionLevel({ ...repoParams, username })).data,
      ),
    );

    expect(answers.map((answer) => [answer.user?.login, answer.permission, answer.role_name])).toEqual([
      ["user-admin", "admin", "admin"],
      ["user-maintain", "write", "maintain"],
      ["user-write", "write", "write"],
      ["user-triage", "read", "triage"],
      ["user-read", "read", "read"],
      ["stranger", "read", "read"],
    ]);
  });

  it("gives strangers no access to a private repository", async () => {
    fake.createRepository("acme/secret", { private: true });

    const answer = await octokit.rest.repos.getCollaboratorPermissionLevel({
      owner: "acme",
      repo: "secret",
      username: "x",
    });

    expect(answer.data.permission).toBe("none");
  });
});

describe("required status sources", () => {
  it("answers 404 Branch not protected, then the protection and its required checks", async () => {
    await expect(
      octokit.rest.repos.getStatusChecksProtection({ ...repoParams, branch: "main" }),
    ).rejects.toMatchObject({ status: 404, response: { data: { message: "Branch not protected" } } });
    await expect(
      octokit.rest.repos.getBranchProtection({ ...repoParams, branch: "main" }),
    ).rejects.toMatchObject({
      status: 404,
      response: { data: { message: "Branch not protected" } },
    });

    repo.protectBranch("main", { requiredChecks: ["ci", "lint"], strict: true });
    const checks = await octokit.rest.repos.getStatusChecksProtection({ ...repoParams, branch: "main" });
    const protection = await octokit.rest.repos.getBranchProtection({ ...repoParams, branch: "main" });

    expect(checks.data).toMatchObject({
      strict: true,
      contexts: ["ci", "lint"],
      checks: [
        { context: "ci", app_id: null },
        { context: "lint", app_id: null },
      ],
    });
    expect(protection.data.required_status_checks).toEqual(checks.data);
    expect(protection.data.enforce_admins).toMatchObject({ enabled: false });
  });

  it("answers 404 for a protected branch without required checks and for an unknown branch", async () => {
    repo.protectBranch("main");

    await expect(
      octokit.rest.repos.getStatusChecksProtection({ ...repoParams, branch: "main" }),
    ).rejects.toMatchObject({
      status: 404,
      response: { data: { message: "Required status checks not enabled" } },
    });
    await expect(
      octokit.rest.repos.getStatusChecksProtection({ ...repoParams, branch: "nope" }),
    ).rejects.toMatchObject({ status: 404, response: { data: { message: "Branch not found" } } });
  });

  it("reads protection of a branch whose name has slashes", async () => {
    repo.createBranch("release/1.x");
    repo.protectBranch("release/1.x", { requiredChecks: ["ci"] });

    const checks = await octokit.rest.repos.getStatusChecksProtection({
      ...repoParams,
      branch: "release/1.x",
    });
    const branch = await octokit.rest.repos.getBranch({ ...repoParams, branch: "release/1.x" });

    expect(checks.data.contexts).toEqual(["ci"]);
    expect(branch.data).toMatchObject({
      name: "release/1.x",
      protected: true,
      commit: { sha: repo.branch("release/1.x") },
    });
  });

  it("lists the rulesets' required status checks that apply to a branch", async () => {
    expect((await octokit.rest.repos.getBranchRules({ ...repoParams, branch: "main" })).data).toEqual([]);

    repo.addRuleset("main", ["ci", "e2e"]);
    const rules = await octokit.rest.repos.getBranchRules({ ...repoParams, branch: "main" });

    expect(rules.data).toMatchObject([
      {
        type: "required_status_checks",
        parameters: { required_status_checks: [{ context: "ci" }, { context: "e2e" }] },
        ruleset_source_type: "Repository",
        ruleset_source: "acme/widgets",
      },
    ]);
  });
});

describe("file contents", () => {
  it("answers a file in base64 at a ref, the default branch unless told", async () => {
    repo.createBranch("other");
    repo.commit("other", { ".github/switchyard.yml": "merge: {}\n" });

    const onMain = await octokit.rest.repos.getContent({ ...repoParams, path: ".github/switchyard.yml" });
    const onOther = await octokit.rest.repos.getContent({
      ...repoParams,
      path: ".github/switchyard.yml",
      ref: "other",
    });

    const decode = (data: any) => Buffer.from(data.content, "base64").toString("utf8");
    expect(onMain.data).toMatchObject({
      type: "file",
      encoding: "base64",
      path: ".github/switchyard.yml",
      name: "switchyard.yml",
    });
    expect(decode(onMain.data)).toBe("merge:\n  required_statuses:\n    - ci\n");
    expect(decode(onOther.data)).toBe("merge: {}\n");
  });

  it("answers the raw text for the raw media type, which Probot's config plugin reads", async () => {
    const raw = await octokit.rest.repos.getContent({
      ...repoParams,
      path: ".github/CODEOWNERS",
      mediaType: { format: "raw" },
    });
    const config = await octokit.config.get({ ...repoParams, path: ".github/switchyard.yml" });

    expect(raw.data).toBe("* @acme/core\n");
    expect(config.config).toEqual({ merge: { required_statuses: ["ci"] } });
  });

  it("lists a directory, and answers 404 for a missing file or ref", async () => {
    const directory = await octokit.rest.repos.getContent({ ...repoParams, path: ".github" });

    expect((directory.data as any[]).map((entry) => [entry.type, entry.name])).toEqual([
      ["file", "switchyard.yml"],
      ["file", "CODEOWNERS"],
    ]);
    await expect(
      octokit.rest.repos.getContent({ ...repoParams, path: "docs/CODEOWNERS" }),
    ).rejects.toMatchObject({
      status: 404,
    });
    await expect(
      octokit.rest.repos.getContent({ ...repoParams, path: "README.md", ref: "nope" }),
    ).rejects.toMatchObject({
      status: 404,
    });
  });
});
