// Pull requests, their comments and the reactions on comments.
import type { MergeMethod } from "./merge-plans.ts";
import { commentJson, pullRequestJson, pullRequestSimpleJson, reactionJson } from "./representations.ts";
import type { Route } from "./router.ts";
import {
  json,
  noContent,
  numberParam,
  paginate,
  repoRoute,
  requiredStringField,
  stringField,
} from "./router.ts";
import { notFound, validationFailed } from "./world.ts";

const mergeMethods: readonly string[] = ["merge", "squash", "rebase"];

export const pullRequestRoutes: readonly Route[] = [
  repoRoute("GET", "/pulls", (request, repo) => {
    const state = request.query.get("state") ?? "open";
    const head = request.query.get("head");
    const base = request.query.get("base");
    const ascending = request.query.get("direction") === "asc";
    const pulls = repo.pulls
      .all()
      .filter((pr) => state === "all" || pr.state === state)
      // `head` is `owner:branch`; GitHub ignores a bare branch name, a known trap worth reproducing.
      .filter((pr) => head === null || !head.includes(":") || head === `${repo.owner}:${pr.headRef}`)
      .filter((pr) => base === null || pr.baseRef === base)
      .sort((a, b) => (ascending ? a.number - b.number : b.number - a.number));
    const page = paginate(request, pulls);
    return json(
      200,
      page.items.map((pr) => pullRequestSimpleJson(repo, pr)),
      page.headers,
    );
  }),
  repoRoute("POST", "/pulls", (request, repo, host) => {
    const pr = repo.pulls.create(
      {
        title: stringField(request, "title"),
        head: stringField(request, "head"),
        base: stringField(request, "base"),
        body: stringField(request, "body") ?? null,
        draft: request.body.draft === true,
      },
      host.world.appLogin,
    );
    return json(201, pullRequestJson(repo, pr, repo.pulls.mergeability(pr)));
  }),
  repoRoute("GET", "/pulls/{number}", (request, repo) => {
    const pr = repo.pulls.get(numberParam(request, "number"));
    return json(200, pullRequestJson(repo, pr, repo.pulls.mergeability(pr)));
  }),
  repoRoute("PATCH", "/pulls/{number}", (request, repo, host) => {
    const pr = repo.pulls.update(
      numberParam(request, "number"),
      {
        title: stringField(request, "title"),
        body: stringField(request, "body"),
        state: stringField(request, "state"),
        base: stringField(request, "base"),
      },
      host.world.appLogin,
    );
    return json(200, pullRequestJson(repo, pr, repo.pulls.mergeability(pr)));
  }),
  repoRoute("GET", "/pulls/{number}/merge", (request, repo) => {
    if (!repo.pulls.get(numberParam(request, "number")).merged) throw notFound();
    return noContent;
  }),
  repoRoute("PUT", "/pulls/{number}/merge", (request, repo, host) => {
    const method = stringField(request, "merge_method") ?? "merge";
    if (!mergeMethods.includes(method)) {
      throw validationFailed({ resource: "PullRequest", field: "merge_method", code: "invalid" });
    }
    const commit = repo.mergePullRequest(
      numberParam(request, "number"),
      {
        method: method as MergeMethod,
        sha: stringField(request, "sha"),
        commitTitle: stringField(request, "commit_title"),
        commitMessage: stringField(request, "commit_message"),
      },
      host.world.appLogin,
    );
    return json(200, { sha: commit.sha, merged: true, message: "Pull Request successfully merged" });
  }),
  repoRoute("GET", "/issues/{number}/comments", (request, repo) => {
    const pr = repo.pulls.get(numberParam(request, "number"));
    const page = paginate(request, repo.conversation.commentsOn(pr.number));
    return json(
      200,
      page.items.map((comment) => commentJson(repo, comment)),
      page.headers,
    );
  }),
  repoRoute("POST", "/issues/{number}/comments", (request, repo, host) => {
    const body = requiredStringField(request, "body", "IssueComment");
    const { comment } = repo.addComment(numberParam(request, "number"), host.world.appLogin, body);
    return json(201, commentJson(repo, comment));
  }),
  repoRoute("GET", "/issues/comments/{id}", (request, repo) =>
    json(200, commentJson(repo, repo.conversation.comment(numberParam(request, "id")))),
  ),
  repoRoute("PATCH", "/issues/comments/{id}", (request, repo, host) => {
    const body = requiredStringField(request, "body", "IssueComment");
    const comment = repo.editComment(numberParam(request, "id"), body, host.world.appLogin);
    return json(200, commentJson(repo, comment));
  }),
  repoRoute("POST", "/issues/comments/{id}/reactions", (request, repo, host) => {
    const content = requiredStringField(request, "content", "Reaction");
    const { reaction, created } = repo.conversation.react(
      numberParam(request, "id"),
      host.world.appLogin,
      content,
    );
    return json(created ? 201 : 200, reactionJson(repo, reaction));
  }),
];
