// The fake GitHub: repositories, a WHATWG `fetch` answering the REST API as GitHub does, a log of the calls,
// and the outbox of webhooks GitHub would have delivered.
import type { RepositoryOptions } from "./fake-repository.ts";
import { FakeRepository } from "./fake-repository.ts";
import { restRoutes } from "./rest-routes.ts";
import type { RestResult, RouteHost } from "./router.ts";
import { errorResult, json, matchRoute, toResponse } from "./router.ts";
import type { AnyWebhookDelivery } from "./webhook-payloads.ts";
import type { WebhookDelivery, World } from "./world.ts";
import { documentationUrl, GitHubApiError } from "./world.ts";

export interface FakeGitHubOptions {
  /** The REST root: `https://api.github.com` unless a GitHub Enterprise `https://host/api/v3` is given. */
  readonly apiUrl?: string;
  readonly webUrl?: string;
  /** The GitHub App's slug; the app acts as `<slug>[bot]`. */
  readonly appSlug?: string;
  /** Milliseconds since the epoch; by default a logical clock from 2026-01-01, one second per reading. */
  readonly now?: () => number;
}

export interface RecordedRequest {
  readonly method: string;
  /** The decoded path under the API root, e.g. `/repos/acme/widgets/git/refs/heads/mq/main/1` (the whole URL off it). */
  readonly path: string;
  /** The query string, `?…` or empty. */
  readonly query: string;
  readonly body: unknown;
}

export interface InjectedFailure {
  readonly method?: string;
  /** Matched against the decoded path (a string must be equal). */
  readonly path: string | RegExp;
  readonly status: number;
  readonly message?: string;
  /** How many matching calls fail; 1 unless told. */
  readonly times?: number;
  /** Headers of the failure, e.g. a secondary rate limit's `retry-after`. */
  readonly headers?: Readonly<Record<string, string>>;
}

const logicalEpoch = Date.parse("2026-01-01T00:00:00Z");

const unparsable = Symbol("unparsable");

/** A malformed escape stays as sent, and then matches no route, as GitHub answers 404. */
function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function parseJson(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return unparsable;
  }
}

export class FakeGitHub {
  /** Every API call, in order. */
  readonly requests: RecordedRequest[] = [];
  /** Calls no route answers (they got a 404): a scenario should end with none. */
  readonly unhandled: RecordedRequest[] = [];
  /** Every webhook GitHub would have delivered, in order, whoever caused it (tests or the app). */
  readonly webhooks: AnyWebhookDelivery[] = [];
  private readonly world: World;
  private delivered = 0;
  private readonly repositories = new Map<string, FakeRepository>();
  private readonly failures: { failure: InjectedFailure; left: number }[] = [];
  private readonly host: RouteHost;

  constructor(options: FakeGitHubOptions = {}) {
    let sequence = 0;
    let ticks = 0;
    let tokens = 0;
    const ids = new Map<string, number>();
    const appSlug = options.appSlug ?? "switchyard";
    const clock = options.now ?? (() => logicalEpoch + 1000 * ticks++);
    const iso = (millis: number) => new Date(millis).toISOString().replace(/\.\d{3}Z$/, "Z");
    const world: World = {
      apiUrl: (options.apiUrl ?? "https://api.github.com").replace(/\/$/, ""),
      webUrl: (options.webUrl ?? "https://github.com").replace(/\/$/, ""),
      appSlug,
      appLogin: `${appSlug}[bot]`,
      nextId: () => ++sequence,
      idFor: (key) => {
        if (!ids.has(key)) ids.set(key, ++sequence);
        return ids.get(key) as number;
      },
      now: () => iso(clock()),
      emit: <N extends string, P>(name: N, payload: P): WebhookDelivery<N, P> => {
        const id = `00000000-0000-4000-8000-${(this.webhooks.length + 1).toString(16).padStart(12, "0")}`;
        const delivery = { id, name, payload };
        this.webhooks.push(delivery as unknown as AnyWebhookDelivery);
        return delivery;
      },
    };
    this.world = world;
    this.host = {
      world,
      findRepository: (fullName) => this.repositories.get(fullName.toLowerCase()),
      issueInstallationToken: (installationId) => {
        const installed = [...this.repositories.values()].some(
          (repo) => repo.installationId === installationId,
        );
        if (!installed) return undefined;
        tokens += 1;
        return {
          token: `ghs_fake${String(installationId).padStart(8, "0")}${String(tokens).padStart(24, "0")}`,
          expiresAt: iso(Date.parse(world.now()) + 3_600_000),
        };
      },
    };
  }

  createRepository(fullName: string, options: RepositoryOptions = {}): FakeRepository {
    const key = fullName.toLowerCase();
    if (this.repositories.has(key)) throw new Error(`repository ${fullName} already exists`);
    const repo = new FakeRepository(this.world, fullName, options);
    this.repositories.set(key, repo);
    return repo;
  }

  repository(fullName: string): FakeRepository {
    const repo = this.repositories.get(fullName.toLowerCase());
    if (!repo) throw new Error(`no repository ${fullName}`);
    return repo;
  }

  /** The login the app acts as: the author of its comments, statuses, merges and branches. */
  get appLogin(): string {
    return this.world.appLogin;
  }

  /** The webhooks emitted since the last call, to deliver to the app. */
  takeWebhooks(): AnyWebhookDelivery[] {
    const pending = this.webhooks.slice(this.delivered);
    this.delivered = this.webhooks.length;
    return pending;
  }

  /** `METHOD /path` of every call, for compact assertions. */
  calls(): string[] {
    return this.requests.map((request) => `${request.method} ${request.path}`);
  }

  /** Makes the next matching call(s) fail with `status` (a flaky GitHub), before any route sees them. */
  failNext(failure: InjectedFailure): void {
    this.failures.push({ failure, left: failure.times ?? 1 });
  }

  /** A WHATWG `fetch` for Octokit's `request.fetch`. */
  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const text = request.method === "GET" || request.method === "HEAD" ? "" : await request.text();
    const body = parseJson(text);
    const root = new URL(this.world.apiUrl);
    const underRoot =
      url.origin === root.origin && (root.pathname === "/" || url.pathname.startsWith(`${root.pathname}/`));
    const relative = root.pathname === "/" ? url.pathname : url.pathname.slice(root.pathname.length);
    const segments = relative
      .split("/")
      .filter(Boolean)
      .flatMap((segment) => safeDecode(segment).split("/"))
      .filter(Boolean);
    const path = underRoot ? `/${segments.join("/")}` : `${url.origin}${url.pathname}`;
    const recorded = { method: request.method, path, query: url.search, body };
    this.requests.push(recorded);
    // A real fetch response knows its URL; octokit.paginate reads it on the last page of `{ total_count, … }` lists.
    const respond = (result: RestResult) => {
      const response = toResponse(result);
      Object.defineProperty(response, "url", { value: request.url });
      return response;
    };
    if (body === unparsable) return respond(errorResult(new GitHubApiError(400, "Problems parsing JSON")));
    const injected = this.injectedFailure(recorded);
    if (injected) return respond(injected);
    if (underRoot) {
      for (const candidate of restRoutes) {
        const params = matchRoute(candidate, request.method, segments);
        if (!params) continue;
        const fields = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
        const restRequest = {
          method: request.method,
          url,
          params,
          query: url.searchParams,
          headers: request.headers,
          body: fields,
        };
        try {
          return respond(candidate.handler(restRequest, this.host));
        } catch (error) {
          if (error instanceof GitHubApiError) return respond(errorResult(error));
          throw error;
        }
      }
    }
    this.unhandled.push(recorded);
    return respond(json(404, { message: "Not Found", documentation_url: documentationUrl }));
  };

  private injectedFailure(request: RecordedRequest): RestResult | undefined {
    const entry = this.failures.find(
      ({ failure, left }) =>
        left > 0 &&
        (failure.method === undefined || failure.method === request.method) &&
        (typeof failure.path === "string" ? failure.path === request.path : failure.path.test(request.path)),
    );
    if (!entry) return undefined;
    entry.left -= 1;
    const result = errorResult(
      new GitHubApiError(entry.failure.status, entry.failure.message ?? "Server Error"),
    );
    return entry.failure.headers
      ? { ...result, headers: { ...result.headers, ...entry.failure.headers } }
      : result;
  }
}
