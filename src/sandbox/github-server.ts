// The fake GitHub over HTTP, so that real service processes can use it as their GitHub Enterprise host
// (GHE_HOST=127.0.0.1:<port>, GHE_PROTOCOL=http: Probot then calls http://127.0.0.1:<port>/api/v3). It can be
// made to fail for a while as GitHub does: 500, 502 from its load balancer, 403 secondary rate limits with
// `retry-after`, and requests that hang until the connection is dropped.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { FakeGitHub } from "./fake-github/index.ts";

/** How GitHub fails during an outage: 500, 502 from its load balancer, a secondary rate limit, or no answer. */
export type OutageKind = "500" | "502" | "rate-limit" | "hang";

export interface Outage {
  readonly kind: OutageKind;
  readonly startedAt: number;
  readonly endsAt: number;
}

export interface GitHubServer {
  readonly fake: FakeGitHub;
  /** `127.0.0.1:<port>`: the service's GHE_HOST. */
  readonly host: string;
  /** Every outage so far, the current one last. */
  readonly outages: readonly Outage[];
  /** Every call GitHub answered with a failure during an outage (hung calls count when dropped). */
  readonly failedCalls: number;
  /** Makes every call fail as `kind` says for `ms` milliseconds (from now). */
  startOutage(kind: OutageKind, ms: number): void;
  close(): Promise<void>;
}

const rateLimitMessage =
  "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.";

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startGitHubServer(): Promise<GitHubServer> {
  const outages: Outage[] = [];
  const hung = new Set<ServerResponse>();
  let failedCalls = 0;
  let dropTimer: NodeJS.Timeout | undefined;

  const current = (now = Date.now()) => {
    const last = outages.at(-1);
    return last && last.startedAt <= now && now < last.endsAt ? last : undefined;
  };

  /** What GitHub answers during an outage; false when the call hangs. */
  const failDuring = (outage: Outage, response: ServerResponse): boolean => {
    if (outage.kind === "hang") {
      hung.add(response);
      return false;
    }
    failedCalls += 1;
    if (outage.kind === "502") {
      response.writeHead(502, { "content-type": "text/html" }).end("<html><body>Bad Gateway</body></html>");
    } else if (outage.kind === "500") {
      response
        .writeHead(500, { "content-type": "application/json; charset=utf-8" })
        .end(JSON.stringify({ message: "Server Error" }));
    } else {
      const retryAfter = Math.max(1, Math.ceil((outage.endsAt - Date.now()) / 1000));
      response
        .writeHead(403, {
          "content-type": "application/json; charset=utf-8",
          "retry-after": String(retryAfter),
        })
        .end(
          JSON.stringify({ message: rateLimitMessage, documentation_url: "https://docs.github.com/rest" }),
        );
    }
    return true;
  };

  /** Hung calls end as a timed-out connection does: dropped without an answer. */
  const dropHung = () => {
    for (const response of hung) {
      failedCalls += 1;
      response.socket?.destroy();
    }
    hung.clear();
  };

  // Listening first: the fake's URLs name the port it listens on.
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  // A real clock: installation tokens expire an hour from now, as the service expects.
  const fake = new FakeGitHub({ apiUrl: `http://${host}/api/v3`, webUrl: `http://${host}`, now: Date.now });

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const body = await readBody(request);
    const outage = current();
    if (outage) {
      failDuring(outage, response);
      return;
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === "string") headers.set(name, value);
    }
    const method = request.method ?? "GET";
    const answer = await fake.fetch(`http://${host}${request.url ?? "/"}`, {
      method,
      headers,
      ...(method === "GET" || method === "HEAD" ? {} : { body }),
    });
    const answerHeaders: Record<string, string> = {};
    answer.headers.forEach((value, name) => (answerHeaders[name] = value));
    response.writeHead(answer.status, answerHeaders).end(Buffer.from(await answer.arrayBuffer()));
  };

  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    handle(request, response).catch((error: unknown) => {
      response.writeHead(500).end(String(error));
    });
  });

  return {
    fake,
    host,
    outages,
    get failedCalls() {
      return failedCalls;
    },
    startOutage(kind, ms) {
      const now = Date.now();
      outages.push({ kind, startedAt: now, endsAt: now + ms });
      clearTimeout(dropTimer);
      dropTimer = setTimeout(dropHung, ms);
    },
    async close() {
      clearTimeout(dropTimer);
      dropHung();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
