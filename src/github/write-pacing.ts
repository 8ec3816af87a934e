// Paces the app's writes to GitHub under its secondary rate limits instead of waiting to be refused. GitHub documents
// about 80 content-creating requests a minute and 500 an hour per app installation; past them it refuses with 403 and
// `retry-after`, and may refuse longer when a client keeps going. A write that would go past either limit is not
// sent: it is answered at once as GitHub would answer it (403 with `retry-after`, the seconds until a slot is
// free), so the outbox postpones the repository's commands until then, exactly as after a refusal from GitHub
// (src/runner/outbox-worker.ts), and other accounts' writes go on.

/** A limit: at most `requests` content-creating requests in any `windowMs`. */
export interface WriteLimit {
  windowMs: number;
  requests: number;
}

/** GitHub's documented secondary limits, with a margin for writes the app makes outside this process's count. */
export const githubWriteLimits: readonly WriteLimit[] = [
  { windowMs: 60_000, requests: 75 },
  { windowMs: 3_600_000, requests: 475 },
];

/** The writes of each account (an installation's owner), as times sent, within the longest window. */
export class WritePacer {
  readonly #sent = new Map<string, number[]>();
  readonly #longestMs: number;

  constructor(
    private readonly limits: readonly WriteLimit[],
    private readonly clock: () => number = Date.now,
  ) {
    this.#longestMs = Math.max(...limits.map((limit) => limit.windowMs));
  }

  /**
   * Takes a slot for a write of `account` now and answers undefined, or, when a limit is reached, takes none and
   * answers the milliseconds until the first slot frees up.
   */
  take(account: string): number | undefined {
    const now = this.clock();
    const sent = (this.#sent.get(account) ?? []).filter((at) => at > now - this.#longestMs);
    let freeAt: number | undefined;
    for (const { windowMs, requests } of this.limits) {
      const inWindow = sent.filter((at) => at > now - windowMs);
      if (inWindow.length >= requests) {
        const slotFreesAt = inWindow[inWindow.length - requests]! + windowMs;
        freeAt = Math.max(freeAt ?? 0, slotFreesAt);
      }
    }
    if (freeAt === undefined) sent.push(now);
    this.#sent.set(account, sent);
    return freeAt === undefined ? undefined : freeAt - now;
  }
}

/** Whether GitHub counts a request as content-creating: a write to a repository or an issue, not a token request. */
export function isContentCreating(method: string, url: URL): boolean {
  return method !== "GET" && method !== "HEAD" && url.pathname.startsWith("/repos/");
}

/** The account a request acts on (`/repos/{owner}/…`), lower case: GitHub counts each installation apart. */
export function accountOf(url: URL): string {
  return (url.pathname.split("/")[2] ?? "").toLowerCase();
}

/**
 * `fetch` that answers a content-creating request past the limits itself, as GitHub would (403 with
 * `retry-after`), without sending it.
 */
export function withWritePacing(fetch: typeof globalThis.fetch, pacer: WritePacer): typeof globalThis.fetch {
  return (input, init) => {
    const request = input instanceof Request ? input : undefined;
    const method = (init?.method ?? request?.method ?? "GET").toUpperCase();
    const url = new URL(request?.url ?? String(input));
    if (isContentCreating(method, url)) {
      const waitMs = pacer.take(accountOf(url));
      if (waitMs !== undefined) {
        const seconds = Math.max(1, Math.ceil(waitMs / 1000));
        return Promise.resolve(
          Response.json(
            {
              message: `Switchyard paced this write under GitHub's secondary rate limits for content-creating requests: try again in ${seconds} s`,
            },
            { status: 403, headers: { "retry-after": String(seconds) } },
          ),
        );
      }
    }
    return fetch(input, init);
  };
}
