// The service's HTTP server: node:http with our request logger (request-log.ts) in front of a chain of handlers.
// It stands in for Probot's `Server`, whose pino-http logger wrote every request's headers (API tokens, session
// cookies, webhook signatures) to the log and cannot be replaced through Probot's options. The GitHub App itself
// is still Probot's, mounted with Probot's own `createNodeMiddleware`.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import { requestLogger } from "./request-log.ts";

/** Answers a request and says so, or leaves it to the next handler. */
export type Handler = (req: IncomingMessage, res: ServerResponse) => boolean | void | Promise<boolean | void>;

export interface HttpService {
  readonly port: number;
  stop(): Promise<void>;
}

export interface ServeOptions {
  log: Logger;
  host: string | undefined;
  port: number;
  handlers: Handler[];
}

/** GET /ping answers PONG, as Probot's server does: load balancers and the benchmarks probe it. */
export const pingHandler: Handler = (req, res) => {
  if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/ping") return false;
  res.writeHead(200, { "content-type": "text/plain" }).end("PONG");
  return true;
};

/** Listens on `host` (localhost when unset, as Probot does) and `port`; a request no handler takes gets 404. */
export async function serveHttp({
  log,
  host = "localhost",
  port,
  handlers,
}: ServeOptions): Promise<HttpService> {
  const logRequest = requestLogger(log);
  const server: Server = createServer(async (req, res) => {
    logRequest(req, res);
    try {
      for (const handler of handlers) {
        // Most handlers answer at once whether a request is theirs: only a promise is waited for.
        const taken = handler(req, res);
        if (taken === true || (taken instanceof Promise && (await taken))) return;
      }
      if (!res.headersSent) res.writeHead(404).end();
    } catch (error) {
      // The error's own text is logged; the client learns nothing of it.
      log.error({ err: error }, "request handler failed");
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EADDRINUSE") {
        error.message = `port ${port} is already in use: set PORT to another one`;
      }
      reject(error);
    });
    server.listen({ port, host }, resolve);
  });
  const listening = (server.address() as AddressInfo).port;
  log.info(`Listening on http://${host.includes(":") ? `[${host}]` : host}:${listening}`);
  return {
    port: listening,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        if (!server.listening) return resolve();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      }),
  };
}
