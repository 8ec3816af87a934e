// Whole-queue scenarios: the app on a real socket, talking to a stateful fake GitHub, with webhooks that
// GitHub would send delivered to it (signed), and the engine run until the queue is quiet.
import type { Logger } from "pino";
import { FakeGitHub, type FakeRepository } from "../../src/sandbox/fake-github/index.ts";
import { type TestServer, startTestServer, tokenFor } from "./api-server.ts";
import { createTestStore, type TestStore } from "./database.ts";
import { deliverWebhook } from "./webhooks.ts";
import type { Dialect } from "../../src/store/database.ts";

export const installationId = 4242;

export interface Scenario {
  fake: FakeGitHub;
  repo: FakeRepository;
  store: TestStore;
  server: TestServer;
  token: string;
  /** The service's clock, which tests move forward. */
  clock: { now: number };
  /**
   * GitHub's reachability: while `down`, every request of the app fails as an unreachable host does, and is
   * counted in `attempts`.
   */
  github: { down: boolean; attempts: number };
  /** POSTs to /v1/<path> with the organization's token and returns the parsed body and status. */
  api(path: string, body: Record<string, unknown>): Promise<{ status: number; body: any }>;
  /** Opens PR #n for each number (alice's change to src/<n>.ts) and submits it to the queue of main by the API. */
  submitPullRequests(numbers: readonly number[]): Promise<void>;
  /** Delivers every webhook GitHub emitted and runs the queue's commands, until nothing is left. */
  settle(): Promise<void>;
  /** Delivers the webhooks GitHub emitted so far, and nothing more (safe while the app awaits GitHub). */
  deliverWebhooks(): Promise<void>;
  /** Runs one scheduler pass (ticks, retries) with polling of GitHub. */
  poll(): Promise<void>;
  /** Stops the service abruptly and starts a new one on the same database, as after a crash. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export const repoRef = { host: "github.com", owner: "acme", name: "widgets" };

export interface ScenarioOptions {
  dialect?: Dialect;
  files?: Record<string, string>;
  log?: Logger;
  /**
   * Runs after the fake GitHub handled each of the app's requests, before the app has the answer: to make things
   * happen on GitHub while the app waits for it.
   */
  whileAppWaits?: (request: Request, response: Response) => Promise<void>;
  /** The service's environment (its configuration). */
  env?: Record<string, string>;
}

/** A write of the app to GitHub: method, path below the repository, and JSON body. */
export interface GitHubWrite {
  readonly method: string;
  readonly path: string;
  readonly body: Record<string, unknown>;
}

/** Records every write the app makes to GitHub, in order (pass `whileAppWaits` to startScenario). */
export function recordWrites(): { writes: GitHubWrite[]; whileAppWaits: ScenarioOptions["whileAppWaits"] } {
  const writes: GitHubWrite[] = [];
  return {
    writes,
    whileAppWaits: async (request) => {
      if (request.method === "GET") return;
      const path = new URL(request.url).pathname.replace(/^\/repos\/[^/]+\/[^/]+/, "");
      const text = await request.text();
      writes.push({ method: request.method, path, body: text === "" ? {} : JSON.parse(text) });
    },
  };
}

export async function startScenario(options: ScenarioOptions = {}): Promise<Scenario> {
  const fake = new FakeGitHub();
  const repo = fake.createRepository("acme/widgets", {
    installationId,
    files: options.files ?? { "README.md": "# widgets\n", "src/a.ts": "a\n", "src/b.ts": "b\n" },
  });
  const store = await createTestStore(options.dialect ?? "sqlite");
  const clock = { now: Date.parse("2026-11-21T10:00:00.000Z") };
  const github = { down: false, attempts: 0 };
  // A real fetch Response carries its URL; Octokit's pagination reads it.
  const fetch: typeof globalThis.fetch = async (input, init) => {
    if (github.down) {
      github.attempts++;
      throw new TypeError("fetch failed", {
        cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }),
      });
    }
    const response = await fake.fetch(input as string | URL | Request, init);
    const request = new Request(input, init);
    Object.defineProperty(response, "url", { value: request.url });
    await options.whileAppWaits?.(request, response.clone());
    return response;
  };
  const serverOptions = {
    fetch,
    clock: () => clock.now,
    ...(options.log ? { log: options.log } : {}),
    ...(options.env ? { env: options.env } : {}),
  };
  let server = await startTestServer(store, serverOptions);
  const token = await tokenFor(store, "acme");
  // Webhooks from set-up (the initial pushes) are not for the app.
  fake.takeWebhooks();

  /** Delivers the webhooks emitted so far; answers how many there were. */
  const deliverWebhooks = async () => {
    const webhooks = fake.takeWebhooks();
    for (const webhook of webhooks) {
      const response = await deliverWebhook(server.url, webhook.name, webhook.payload, webhook.id);
      if (response.status >= 400)
        throw new Error(`webhook ${webhook.name} answered ${response.status}: ${await response.text()}`);
    }
    return webhooks.length;
  };
  const settle = async () => {
    for (let round = 0; round < 100; round++) {
      await server.engine.settle();
      if ((await deliverWebhooks()) === 0) return;
    }
    throw new Error("the queue did not settle after 100 rounds of webhooks");
  };

  return {
    fake,
    repo,
    store,
    get server() {
      return server;
    },
    token,
    clock,
    github,
    async api(path, body) {
      const response = await server.post(path, body, token);
      return { status: response.status, body: await response.json() };
    },
    async submitPullRequests(numbers) {
      for (const number of numbers) {
        const files = { [`src/${number}.ts`]: `${number}\n` };
        repo.openPullRequest({ number, title: `Change ${number}`, author: "alice", files });
        const response = await server.post(
          "submitPullRequest",
          { repo: repoRef, targetBranch: "main", pr: { number } },
          token,
        );
        if (response.status !== 200) throw new Error(`submitting #${number} answered ${response.status}`);
      }
    },
    settle,
    async deliverWebhooks() {
      await deliverWebhooks();
    },
    async poll() {
      await server.engine.scheduler.runOnce({ poll: true });
      await settle();
    },
    async restart() {
      await server.close();
      server = await startTestServer(store, serverOptions);
    },
    async close() {
      await server.close();
      await store.destroy();
    },
  };
}
