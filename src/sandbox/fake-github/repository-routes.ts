// The app's installation and token, the repository itself, collaborator permissions, branch protection,
// rulesets and file contents.
import { blobSha } from "./git.ts";
import { accountJson, commitJson, repositoryJson } from "./representations.ts";
import type { FakeRepository } from "./fake-repository.ts";
import type { RestRequest, Route } from "./router.ts";
import { json, numberParam, repoRoute, route } from "./router.ts";
import type { BranchProtection } from "./repository-settings.ts";
import { legacyPermission } from "./repository-settings.ts";
import { GitHubApiError, notFound } from "./world.ts";

function protectionUrl(repo: FakeRepository, branch: string): string {
  return `${repo.apiUrl}/branches/${branch}/protection`;
}

function statusCheckPolicyJson(
  repo: FakeRepository,
  branch: string,
  contexts: readonly string[],
  strict: boolean,
) {
  const url = `${protectionUrl(repo, branch)}/required_status_checks`;
  return {
    url,
    strict,
    contexts,
    contexts_url: `${url}/contexts`,
    checks: contexts.map((context) => ({ context, app_id: null })),
  };
}

function protectionJson(repo: FakeRepository, branch: string, protection: BranchProtection) {
  const url = protectionUrl(repo, branch);
  const disabled = { enabled: false };
  return {
    url,
    ...(protection.requiredChecks && {
      required_status_checks: statusCheckPolicyJson(
        repo,
        branch,
        protection.requiredChecks,
        protection.strict ?? false,
      ),
    }),
    enforce_admins: { url: `${url}/enforce_admins`, enabled: false },
    required_linear_history: { enabled: protection.requiredLinearHistory === true },
    required_signatures: {
      url: `${url}/required_signatures`,
      enabled: protection.requiredSignatures === true,
    },
    allow_force_pushes: disabled,
    allow_deletions: disabled,
    block_creations: disabled,
    required_conversation_resolution: disabled,
    lock_branch: { enabled: protection.lockBranch === true },
    allow_fork_syncing: disabled,
  };
}

/** The protection of an existing branch: 404 "Branch not found" / "Branch not protected" as GitHub says. */
function protectionOf(
  repo: FakeRepository,
  request: RestRequest,
): { branch: string; protection: BranchProtection } {
  const branch = request.params.branch as string;
  if (repo.branch(branch) === undefined) throw new GitHubApiError(404, "Branch not found");
  const protection = repo.settings.protectionOf(branch);
  if (!protection) throw new GitHubApiError(404, "Branch not protected");
  return { branch, protection };
}

/** base64 in lines of 60 characters, as the contents API sends it. */
function base64Lines(content: string): string {
  const encoded = Buffer.from(content, "utf8").toString("base64");
  return `${encoded.match(/.{1,60}/g)?.join("\n") ?? ""}\n`;
}

function contentEntry(repo: FakeRepository, path: string, ref: string, type: "file" | "dir", content = "") {
  const url = `${repo.apiUrl}/contents/${path}?ref=${encodeURIComponent(ref)}`;
  const sha = blobSha(type === "file" ? content : path);
  const htmlUrl = `${repo.htmlUrl}/${type === "file" ? "blob" : "tree"}/${ref}/${path}`;
  const gitUrl = `${repo.apiUrl}/git/${type === "file" ? "blobs" : "trees"}/${sha}`;
  return {
    type,
    name: path.split("/").at(-1) as string,
    path,
    sha,
    size: type === "file" ? Buffer.byteLength(content) : 0,
    url,
    html_url: htmlUrl,
    git_url: gitUrl,
    download_url:
      type === "file" ? `https://raw.githubusercontent.com/${repo.fullName}/${ref}/${path}` : null,
    _links: { self: url, git: gitUrl, html: htmlUrl },
  };
}

export const repositoryRoutes: readonly Route[] = [
  route("POST", "/app/installations/{id}/access_tokens", (request, host) => {
    const installationId = numberParam(request, "id");
    const token = host.issueInstallationToken(installationId);
    if (!token) throw notFound();
    return json(201, {
      token: token.token,
      expires_at: token.expiresAt,
      permissions: {
        contents: "write",
        pull_requests: "write",
        statuses: "write",
        checks: "read",
        issues: "write",
      },
      repository_selection: "selected",
    });
  }),
  repoRoute("GET", "/installation", (_request, repo, host) => {
    if (repo.installationId === undefined) throw notFound();
    return json(200, {
      id: repo.installationId,
      account: accountJson(host.world, repo.owner, repo.ownerType),
      repository_selection: "selected",
      access_tokens_url: `${host.world.apiUrl}/app/installations/${repo.installationId}/access_tokens`,
      repositories_url: `${host.world.apiUrl}/installation/repositories`,
      html_url: `${host.world.webUrl}/settings/installations/${repo.installationId}`,
      app_id: host.world.idFor(`app:${host.world.appSlug}`),
      app_slug: host.world.appSlug,
      target_id: host.world.idFor(`account:${repo.owner}`),
      target_type: repo.ownerType,
      permissions: {},
      events: [],
      created_at: "2020-01-01T00:00:00Z",
      updated_at: "2020-01-01T00:00:00Z",
      single_file_name: null,
    });
  }),
  repoRoute("GET", "", (_request, repo) => json(200, repositoryJson(repo))),
  repoRoute("GET", "/collaborators/{user}/permission", ({ params }, repo, host) => {
    const role = repo.settings.roleOf(params.user as string, repo.isPrivate);
    return json(200, {
      permission: legacyPermission(role),
      role_name: role,
      user: accountJson(host.world, params.user as string),
    });
  }),
  repoRoute("GET", "/branches/{branch+}/protection/required_status_checks", (request, repo) => {
    const { branch, protection } = protectionOf(repo, request);
    if (!protection.requiredChecks) throw new GitHubApiError(404, "Required status checks not enabled");
    return json(
      200,
      statusCheckPolicyJson(repo, branch, protection.requiredChecks, protection.strict ?? false),
    );
  }),
  repoRoute("GET", "/branches/{branch+}/protection", (request, repo) => {
    const { branch, protection } = protectionOf(repo, request);
    return json(200, protectionJson(repo, branch, protection));
  }),
  repoRoute("GET", "/branches/{branch+}", ({ params }, repo) => {
    const branch = params.branch as string;
    const commit = repo.resolve(branch);
    if (repo.branch(branch) === undefined || !commit) throw new GitHubApiError(404, "Branch not found");
    return json(200, {
      name: branch,
      commit: commitJson(repo, commit),
      _links: { self: `${repo.apiUrl}/branches/${branch}`, html: `${repo.htmlUrl}/tree/${branch}` },
      protected: repo.settings.protectionOf(branch) !== undefined,
      protection_url: protectionUrl(repo, branch),
    });
  }),
  repoRoute("GET", "/rules/branches/{branch+}", ({ params }, repo) =>
    json(200, [
      ...repo.settings.rulesetsFor(params.branch as string).map((ruleset) => ({
        type: "required_status_checks",
        parameters: {
          strict_required_status_checks_policy: false,
          do_not_enforce_on_create: false,
          required_status_checks: ruleset.requiredChecks.map((context) => ({ context })),
        },
        ruleset_source_type: "Repository",
        ruleset_source: repo.fullName,
        ruleset_id: ruleset.id,
      })),
      ...repo.rules.rulesetRulesOf(params.branch as string),
    ]),
  ),
  // Probot's `context.config()` asks for the raw media type and gets the bare text.
  repoRoute("GET", "/contents/{path+}", (request, repo) => {
    const path = request.params.path as string;
    const ref = request.query.get("ref") ?? repo.defaultBranch;
    const commit = repo.resolve(ref);
    if (!commit) throw new GitHubApiError(404, `No commit found for the ref ${ref}`);
    const content = commit.tree.get(path);
    if (content !== undefined) {
      if (/raw/.test(request.headers.get("accept") ?? "")) return { status: 200, text: content };
      return json(200, {
        ...contentEntry(repo, path, ref, "file", content),
        encoding: "base64",
        content: base64Lines(content),
      });
    }
    const children = new Map<string, "file" | "dir">();
    for (const file of commit.tree.keys()) {
      if (!file.startsWith(`${path}/`)) continue;
      const [name = "", ...deeper] = file.slice(path.length + 1).split("/");
      children.set(name, deeper.length > 0 ? "dir" : "file");
    }
    if (children.size === 0) throw notFound();
    return json(
      200,
      [...children].map(([name, type]) =>
        contentEntry(repo, `${path}/${name}`, ref, type, commit.tree.get(`${path}/${name}`)),
      ),
    );
  }),
];
