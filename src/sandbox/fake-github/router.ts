// A small REST router for the fake: patterns over path segments, JSON answers as GitHub writes them, and
// GitHub's pagination (`per_page`, `page`, `Link`).
import type { FakeRepository } from "./fake-repository.ts";
import type { World } from "./world.ts";
import type { GitHubApiError } from "./world.ts";
import { documentationUrl, notFound, validationFailed } from "./world.ts";

export interface RestRequest {
  readonly method: string;
  readonly url: URL;
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  readonly headers: Headers;
  readonly body: Readonly<Record<string, unknown>>;
}

export interface RestResult {
  readonly status: number;
  readonly body?: unknown;
  /** A non-JSON body (raw file contents). */
  readonly text?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** What the routes need from the fake beyond one repository. */
export interface RouteHost {
  readonly world: World;
  findRepository(fullName: string): FakeRepository | undefined;
  issueInstallationToken(installationId: number): { token: string; expiresAt: string } | undefined;
}

export type Handler = (request: RestRequest, host: RouteHost) => RestResult;
export type RepositoryHandler = (request: RestRequest, repo: FakeRepository, host: RouteHost) => RestResult;

export interface Route {
  readonly method: string;
  readonly pattern: readonly string[];
  readonly handler: Handler;
}

/**
 * `{name}` matches one segment, `{name+}` one or more (branch names and file paths hold slashes, sent
 * encoded or not). Routes are tried in order, so a longer pattern must come before a `+` that would swallow it.
 */
export function route(method: string, pattern: string, handler: Handler): Route {
  return { method, pattern: pattern.split("/").filter(Boolean), handler };
}

/** A route under `/repos/{owner}/{repo}`, answering 404 for an unknown repository as GitHub does. */
export function repoRoute(method: string, pattern: string, handler: RepositoryHandler): Route {
  return route(method, `/repos/{owner}/{repo}${pattern}`, (request, host) => {
    const repo = host.findRepository(`${request.params.owner}/${request.params.repo}`);
    if (!repo) throw notFound();
    return handler(request, repo, host);
  });
}

export function matchRoute(
  route: Route,
  method: string,
  segments: readonly string[],
): Record<string, string> | undefined {
  if (route.method !== method) return undefined;
  const rest = route.pattern.findIndex((part) => part.endsWith("+}"));
  if (rest === -1) return bind(route.pattern, segments);
  if (segments.length < route.pattern.length) return undefined;
  const tail = segments.length - (route.pattern.length - rest - 1);
  return bind(route.pattern, [
    ...segments.slice(0, rest),
    segments.slice(rest, tail).join("/"),
    ...segments.slice(tail),
  ]);
}

function bind(pattern: readonly string[], segments: readonly string[]): Record<string, string> | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, part] of pattern.entries()) {
    const value = segments[index] as string;
    if (part.startsWith("{")) params[part.replace(/^\{|\+?\}$/g, "")] = value;
    else if (part !== value) return undefined;
  }
  return params;
}

export function json(status: number, body: unknown, headers?: Record<string, string>): RestResult {
  return { status, body, ...(headers && { headers }) };
}

export const noContent: RestResult = { status: 204 };

export function toResponse(result: RestResult): Response {
  const headers = new Headers(result.headers);
  if (result.status === 204) return new Response(null, { status: 204, headers });
  if (result.text !== undefined) {
    headers.set("content-type", "text/plain; charset=utf-8");
    return new Response(result.text, { status: result.status, headers });
  }
  headers.set("content-type", "application/json; charset=utf-8");
  return new Response(JSON.stringify(result.body), { status: result.status, headers });
}

export function errorResult(error: GitHubApiError): RestResult {
  return json(error.status, {
    message: error.message,
    ...(error.errors && { errors: error.errors }),
    documentation_url: documentationUrl,
  });
}

/** One page of `items` with GitHub's `Link` header (`per_page` defaults to 30, at most 100). */
export function paginate<T>(
  request: RestRequest,
  items: readonly T[],
): { items: T[]; headers: Record<string, string> } {
  const perPage = Math.min(100, Math.max(1, Number(request.query.get("per_page") ?? 30) || 30));
  const page = Math.max(1, Number(request.query.get("page") ?? 1) || 1);
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const link = (rel: string, number: number) => {
    const url = new URL(request.url);
    url.searchParams.set("per_page", String(perPage));
    url.searchParams.set("page", String(number));
    return `<${url.toString()}>; rel="${rel}"`;
  };
  const links = [
    ...(page < last ? [link("next", page + 1), link("last", last)] : []),
    ...(page > 1 ? [link("first", 1), link("prev", page - 1)] : []),
  ];
  return {
    items: items.slice((page - 1) * perPage, page * perPage),
    headers: links.length > 0 ? { link: links.join(", ") } : {},
  };
}

export function stringField(request: RestRequest, field: string): string | undefined {
  const value = request.body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw validationFailed({ field, code: "invalid" });
  return value;
}

export function requiredStringField(request: RestRequest, field: string, resource: string): string {
  const value = stringField(request, field);
  if (value === undefined) throw validationFailed({ resource, field, code: "missing_field" });
  return value;
}

export function numberParam(request: RestRequest, name: string): number {
  const value = Number(request.params[name]);
  if (!Number.isInteger(value)) throw notFound();
  return value;
}
