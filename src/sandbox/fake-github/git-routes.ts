// Git data routes: refs, commits, merges and compare.
import { commitJson, gitCommitJson, refJson } from "./representations.ts";
import type { FakeRepository } from "./fake-repository.ts";
import type { Route } from "./router.ts";
import { json, noContent, repoRoute, requiredStringField, stringField } from "./router.ts";
import { GitHubApiError, notFound } from "./world.ts";

function branchRefs(repo: FakeRepository, prefix: string) {
  return repo
    .branches()
    .filter((name) => name.startsWith(prefix))
    .map((name) => refJson(repo, name, repo.branch(name) as string));
}

function noCommitFound(ref: string): GitHubApiError {
  return new GitHubApiError(422, `No commit found for SHA: ${ref}`);
}

export const gitRoutes: readonly Route[] = [
  repoRoute("GET", "/git/ref/heads/{branch+}", ({ params }, repo) => {
    const sha = repo.branch(params.branch as string);
    if (sha === undefined) throw notFound();
    return json(200, refJson(repo, params.branch as string, sha));
  }),
  // The plural form answers a list when the name is only a prefix of existing refs: a known GitHub trap.
  repoRoute("GET", "/git/refs/heads/{branch+}", ({ params }, repo) => {
    const branch = params.branch as string;
    const sha = repo.branch(branch);
    if (sha !== undefined) return json(200, refJson(repo, branch, sha));
    const matching = branchRefs(repo, branch);
    if (matching.length === 0) throw notFound();
    return json(200, matching);
  }),
  repoRoute("GET", "/git/matching-refs/heads/{prefix+}", ({ params }, repo) =>
    json(200, branchRefs(repo, params.prefix as string)),
  ),
  repoRoute("GET", "/git/matching-refs/heads", (_request, repo) => json(200, branchRefs(repo, ""))),
  repoRoute("POST", "/git/refs", (request, repo, host) => {
    const ref = requiredStringField(request, "ref", "Reference");
    const sha = requiredStringField(request, "sha", "Reference");
    repo.createRef(ref, sha, host.world.appLogin);
    const branch = ref.slice("refs/heads/".length);
    return json(201, refJson(repo, branch, sha), { location: `${repo.apiUrl}/git/refs/heads/${branch}` });
  }),
  repoRoute("PATCH", "/git/refs/heads/{branch+}", (request, repo, host) => {
    const branch = request.params.branch as string;
    const sha = requiredStringField(request, "sha", "Reference");
    repo.updateRef(branch, sha, request.body.force === true, host.world.appLogin);
    return json(200, refJson(repo, branch, sha));
  }),
  repoRoute("DELETE", "/git/refs/heads/{branch+}", ({ params }, repo, host) => {
    repo.deleteRef(params.branch as string, host.world.appLogin);
    return noContent;
  }),
  repoRoute("GET", "/git/commits/{sha}", ({ params }, repo) => {
    const commit = repo.resolve(params.sha as string);
    if (!commit || commit.sha !== params.sha) throw notFound();
    return json(200, gitCommitJson(repo, commit));
  }),
  repoRoute("POST", "/git/commits", (request, repo, host) => {
    const { parents, author, committer } = request.body as {
      parents?: unknown;
      author?: { name?: string; date?: string };
      committer?: unknown;
    };
    if (!Array.isArray(parents) || parents.some((sha) => typeof sha !== "string"))
      throw new GitHubApiError(422, "Invalid request: parents is not an array of SHAs");
    const commit = repo.createCommit(requiredStringField(request, "tree", "Commit"), {
      parents: parents as string[],
      message: requiredStringField(request, "message", "Commit"),
      author: author?.name ?? host.world.appLogin,
      date: author?.date ?? host.world.now(),
    });
    // GitHub signs what the app commits as itself; a commit in someone else's name it cannot vouch for.
    if (author !== undefined || committer !== undefined) repo.rules.markUnsigned(commit.sha);
    return json(201, gitCommitJson(repo, commit), { location: `${repo.apiUrl}/git/commits/${commit.sha}` });
  }),
  repoRoute("GET", "/commits/{ref+}", ({ params }, repo) => {
    const commit = repo.resolve(params.ref as string);
    if (!commit) throw noCommitFound(params.ref as string);
    return json(200, commitJson(repo, commit));
  }),
  repoRoute("POST", "/merges", (request, repo, host) => {
    const base = requiredStringField(request, "base", "Merge");
    const head = requiredStringField(request, "head", "Merge");
    const commit = repo.mergeIntoBranch(
      base,
      head,
      stringField(request, "commit_message"),
      host.world.appLogin,
    );
    return commit ? json(201, commitJson(repo, commit)) : noContent;
  }),
  repoRoute("GET", "/compare/{basehead+}", ({ params }, repo) => {
    const [baseRef = "", headRef = ""] = (params.basehead as string).split("...");
    const base = repo.resolve(baseRef);
    const head = repo.resolve(headRef);
    if (!base || !head) throw notFound();
    const ahead = repo.commitsBetween(base.sha, head.sha);
    const behind = repo.commitsBetween(head.sha, base.sha);
    const status =
      ahead.length === 0 && behind.length === 0
        ? "identical"
        : behind.length === 0
          ? "ahead"
          : ahead.length === 0
            ? "behind"
            : "diverged";
    const mergeBase = repo.mergeBase(base.sha, head.sha);
    return json(200, {
      url: `${repo.apiUrl}/compare/${params.basehead}`,
      html_url: `${repo.htmlUrl}/compare/${params.basehead}`,
      status,
      ahead_by: ahead.length,
      behind_by: behind.length,
      total_commits: ahead.length,
      base_commit: commitJson(repo, base),
      merge_base_commit: mergeBase ? commitJson(repo, mergeBase) : null,
      commits: ahead.map((commit) => commitJson(repo, commit)),
    });
  }),
];
