// The whole app (webhooks and /v1) on a real socket on an ephemeral port, as Probot's server mounts it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import { createNodeMiddleware } from "probot";
import { switchyardApp } from "../../src/app.ts";
import { type Config, loadConfig } from "../../src/config.ts";
import type { MergeQueueEngine } from "../../src/runner/engine.ts";
import type { Dialect, Store } from "../../src/store/database.ts";
import { createToken } from "../../src/store/tokens.ts";
import { afterEach, beforeEach } from "vitest";
import { createTestStore, type TestStore } from "./database.ts";
import { testProbot } from "./github-app.ts";

export interface TestServer {
  url: string;
  engine: MergeQueueEngine;
  config: Config;
  server: Server;
  /** The app's request handler, for requests injected without a socket (light-my-request). */
  dispatch: (req: IncomingMessage, res: ServerResponse) => void;
  close(): Promise<void>;
  /** POSTs JSON to /v1/<path> with the given token. */
  post(path: string, body: unknown, token?: string): Promise<Response>;
}

export async function startTestServer(
  store: Store,
  options: {
    env?: Record<string, string>;
    clock?: () => number;
    fetch?: typeof globalThis.fetch;
    log?: Logger;
  } = {},
): Promise<TestServer> {
  const config = loadConfig({ DATABASE_URL: "file::memory:", ...options.env });
  let engine: MergeQueueEngine | undefined;
  const middleware = await createNodeMiddleware(
    switchyardApp({
      config,
      store,
      ...(options.clock ? { clock: options.clock } : {}),
      startScheduler: false,
      onEngine: (built) => (engine = built),
    }),
    { probot: testProbot(options.fetch, options.log, config.githubTimeoutMs) },
  );
  const dispatch = (req: IncomingMessage, res: ServerResponse) => {
    void middleware(req, res, () => res.writeHead(404).end());
  };
  const server = createServer(dispatch);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    engine: engine as MergeQueueEngine,
    config,
    server,
    dispatch,
    close: async () => {
      await engine?.stop();
      await new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      });
    },
    post: (path, body, token) =>
      fetch(`${url}/v1/${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(token ? { "x-api-token": token } : {}) },
        body: JSON.stringify(body),
      }),
  };
}

export async function tokenFor(store: Store, organization: string, owners: string[] = []): Promise<string> {
  const { token } = await createToken(store.db, {
    organization,
    owners,
    host: "github.com",
    now: Date.now(),
  });
  return token;
}

export interface ServerFixture {
  store: TestStore;
  server: TestServer;
  /** A token of the organization `acme`. */
  token: string;
}

/** A fresh database and app for each test of the file, torn down after it. */
export function useTestServer(
  options: { dialect?: Dialect; clock?: () => number; env?: Record<string, string> } = {},
): ServerFixture {
  const fixture = {} as ServerFixture;
  beforeEach(async () => {
    fixture.store = await createTestStore(options.dialect ?? "sqlite");
    fixture.server = await startTestServer(fixture.store, {
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.env ? { env: options.env } : {}),
    });
    fixture.token = await tokenFor(fixture.store, "acme");
  });
  afterEach(async () => {
    await fixture.server.close();
    await fixture.store.destroy();
  });
  return fixture;
}
