// Commit statuses and checks: what CI reported on a commit, as the app polls it.
import type { Commit } from "./git.ts";
import { appJson, checkRunJson, checkSuiteJson, repositoryJson, statusJson } from "./representations.ts";
import type { FakeRepository } from "./fake-repository.ts";
import type { RestRequest, Route } from "./router.ts";
import { json, paginate, repoRoute, requiredStringField, stringField } from "./router.ts";
import { GitHubApiError } from "./world.ts";

function commitAt(repo: FakeRepository, request: RestRequest, status: number): Commit {
  const ref = request.params.ref as string;
  const commit = repo.resolve(ref);
  if (!commit) throw new GitHubApiError(status, `No commit found for SHA: ${ref}`);
  return commit;
}

export const ciRoutes: readonly Route[] = [
  repoRoute("POST", "/statuses/{sha}", (request, repo, host) => {
    const sha = request.params.sha as string;
    const commit = repo.resolve(sha);
    if (!commit || commit.sha !== sha) throw new GitHubApiError(422, `No commit found for SHA: ${sha}`);
    const { status } = repo.addStatus(
      sha,
      {
        state: requiredStringField(request, "state", "Status"),
        context: stringField(request, "context") ?? "default",
        description: stringField(request, "description") ?? null,
        targetUrl: stringField(request, "target_url") ?? null,
      },
      host.world.appLogin,
    );
    return json(201, statusJson(repo, status));
  }),
  repoRoute("GET", "/commits/{ref+}/status", (request, repo) => {
    const { sha } = commitAt(repo, request, 404);
    const statuses = repo.ci.latestStatusesOf(sha).map((status) => statusJson(repo, status));
    return json(200, {
      state: repo.ci.combinedState(sha),
      statuses,
      sha,
      total_count: statuses.length,
      repository: repositoryJson(repo),
      commit_url: `${repo.apiUrl}/commits/${sha}`,
      url: `${repo.apiUrl}/commits/${sha}/status`,
    });
  }),
  repoRoute("GET", "/commits/{ref+}/statuses", (request, repo) => {
    const { sha } = commitAt(repo, request, 404);
    const page = paginate(request, repo.ci.statusesOf(sha));
    return json(
      200,
      page.items.map((status) => statusJson(repo, status)),
      page.headers,
    );
  }),
  repoRoute("GET", "/commits/{ref+}/check-runs", (request, repo) => {
    const { sha } = commitAt(repo, request, 422);
    const filter = request.query.get("filter") === "all" ? "all" : "latest";
    const [name, status, appId] = ["check_name", "status", "app_id"].map((key) => request.query.get(key));
    const runs = repo.ci
      .checkRunsOf(sha, filter)
      .filter((run) => name === null || run.name === name)
      .filter((run) => status === null || run.status === status)
      .filter((run) => appId === null || appJson(repo.world, run.app).id === Number(appId));
    const page = paginate(request, runs);
    return json(
      200,
      { total_count: runs.length, check_runs: page.items.map((run) => checkRunJson(repo, run)) },
      page.headers,
    );
  }),
  repoRoute("GET", "/commits/{ref+}/check-suites", (request, repo) => {
    const { sha } = commitAt(repo, request, 422);
    const [name, appId] = ["check_name", "app_id"].map((key) => request.query.get(key));
    const suites = repo.ci
      .suitesOf(sha)
      .filter((suite) => name === null || repo.ci.runsOfSuite(suite).some((run) => run.name === name))
      .filter((suite) => appId === null || appJson(repo.world, suite.app).id === Number(appId));
    const page = paginate(request, suites);
    return json(
      200,
      { total_count: suites.length, check_suites: page.items.map((suite) => checkSuiteJson(repo, suite)) },
      page.headers,
    );
  }),
];
