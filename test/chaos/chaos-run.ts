// One fault-injection run: the fake GitHub over HTTP, CI, webhook deliveries, and the service as real
// processes on one database (two replicas on PostgreSQL, one on SQLite), under queue traffic while replicas
// are killed and GitHub fails. Returns what happened; verdict.ts judges it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Dialect } from "../../src/store/database.ts";
import { rememberRepository } from "../../src/store/repositories.ts";
import { createToken } from "../../src/store/tokens.ts";
import { createTestStore } from "../support/database.ts";
import { testPrivateKey } from "../support/github-app.ts";
import { freePort } from "../support/ports.ts";
import { CiSimulator } from "../../src/sandbox/ci-simulator.ts";
import { type GitHubServer, startGitHubServer } from "../../src/sandbox/github-server.ts";
import { targetBranch, untruth } from "./pr-truth.ts";
import { ProgressMonitor } from "./progress-monitor.ts";
import { type MemoryAfterGc, Replica } from "./replicas.ts";
import { ServiceApi } from "./service-api.ts";
import type { ChaosSettings } from "./settings.ts";
import { acknowledged, developer, type SubmittedPullRequest, Traffic } from "./traffic.ts";
import { WebhookCourier } from "./webhook-courier.ts";

export const testBranchPrefix = "mq/";
/** The commit status the queue posts on each PR it holds. */
export const queueContext = `Switchyard Merge Queue (${targetBranch})`;
const webhookSecret = "chaos-webhook-secret";

export interface ChaosRun {
  readonly dialect: Dialect;
  readonly settings: ChaosSettings;
  readonly seed: number;
  readonly github: GitHubServer;
  readonly ci: CiSimulator;
  readonly courier: WebhookCourier;
  readonly monitor: ProgressMonitor;
  readonly traffic: Traffic;
  readonly api: ServiceApi;
  readonly replicas: readonly Replica[];
  /** The replica never killed, whose memory is measured (on SQLite the one replica, restarted). */
  readonly measured: Replica;
  /** The measured replica's RSS as it was, before and after the run. */
  readonly rssBefore: number;
  readonly rssAfter: number;
  /** Then, after a full garbage collection. */
  readonly before: MemoryAfterGc;
  readonly after: MemoryAfterGc;
  /** When the traffic started, ms since the epoch. */
  readonly startedAt: number;
  /** From the first submission until every PR was final or the drain time ran out. */
  readonly durationMs: number;
  /** Whether every PR was final before the drain time ran out. */
  readonly drained: boolean;
  /** Each PR's record as getSubmittedPullRequest answers it at the end (null: the service has none). */
  readonly records: ReadonlyMap<SubmittedPullRequest, any>;
  /** Stops the processes and servers and removes the database. */
  close(): Promise<void>;
}

/** mulberry32: the same seed gives the same PRs, breakages, flakes and deliveries' fates. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    // The listener goes with the sleep: the fault loops sleep on one signal for the whole run.
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export async function runChaos(dialect: Dialect, settings: ChaosSettings, seed: number): Promise<ChaosRun> {
  const random = seededRandom(seed);
  const github = await startGitHubServer();
  const { fake, host } = github;
  const store = await createTestStore(dialect);
  const workdirs: string[] = [];
  const replicas: Replica[] = [];
  const stopped: (() => void)[] = [];
  const close = async () => {
    for (const stop of stopped) stop();
    await Promise.all(replicas.map((replica) => replica.stop()));
    await github.close();
    await store.destroy();
    for (const dir of workdirs) rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const [index, fullName] of settings.repositories.entries()) {
      const installationId = 100 + index;
      const repo = fake.createRepository(fullName, { installationId });
      repo.setPermission(developer, "write");
      const [owner, name] = fullName.split("/") as [string, string];
      await rememberRepository(store.db, { host, owner, name, installationId }, Date.now());
    }
    const { token } = await createToken(store.db, {
      organization: "acme",
      owners: [],
      host,
      now: Date.now(),
    });

    const env = {
      DATABASE_URL: store.databaseUrl,
      APP_ID: "1",
      PRIVATE_KEY: testPrivateKey(),
      WEBHOOK_SECRET: webhookSecret,
      GHE_HOST: host,
      GHE_PROTOCOL: "http",
      POLL_INTERVAL_SECONDS: String(settings.pollIntervalSeconds),
      TEST_BRANCH_PREFIX: testBranchPrefix,
      LOG_LEVEL: settings.logLevel,
    };
    const count = dialect === "postgres" ? 2 : 1;
    for (let index = 0; index < count; index++) {
      const cwd = mkdtempSync(join(tmpdir(), "switchyard-chaos-"));
      workdirs.push(cwd);
      const replica = new Replica(
        `replica-${index + 1}`,
        await freePort(),
        env,
        cwd,
        settings.replicas.startTimeoutMs,
        index === count - 1,
      );
      replicas.push(replica);
    }
    await Promise.all(replicas.map((replica) => replica.start()));
    // Killed: the first replica. Measured: the last (on PostgreSQL it is never killed).
    const victim = replicas[0] as Replica;
    const measured = replicas.at(-1) as Replica;

    const api = new ServiceApi(replicas, token, random);
    for (const fullName of settings.repositories) {
      const [owner, name] = fullName.split("/");
      const answer = await api.post("createQueue", {
        repo: { host, owner, name },
        targetBranch,
        requiredStatuses: [...settings.requiredStatuses],
        ...settings.queue,
      });
      if (answer.status !== 200)
        throw new Error(`createQueue ${fullName}: ${answer.status} ${JSON.stringify(answer.body)}`);
    }
    fake.takeWebhooks();

    const traffic = new Traffic(fake, api, host, settings, random);
    // Merged on GitHub, or the queue's status on it says failed or cancelled; nobody submits a PR again.
    const final = new Set<SubmittedPullRequest>();
    const isFinal = (pr: SubmittedPullRequest) => {
      if (final.has(pr)) return true;
      const repo = fake.repository(pr.repo);
      const record = repo.pullRequest(pr.number);
      const latest = repo.statuses(record.headSha).find((status) => status.context === queueContext);
      if (record.merged || latest?.state === "failure" || latest?.state === "error") final.add(pr);
      return final.has(pr);
    };
    // A queue has work while a PR it took is not final (one whose command never reached it is not its work).
    const hasWork = (repo: string) =>
      traffic.pullRequests.some(
        (pr) => pr.repo === repo && !isFinal(pr) && acknowledged(pr, courier.acknowledged),
      );
    const monitor = new ProgressMonitor(targetBranch, testBranchPrefix, hasWork, settings.repositories);
    const ci = new CiSimulator(fake, settings, random, testBranchPrefix);
    const courier = new WebhookCourier(
      fake,
      settings,
      random,
      webhookSecret,
      () => replicas.filter((replica) => replica.up).map((replica) => replica.url),
      (delivery) => {
        ci.observe(delivery);
        monitor.observe(delivery);
      },
    );
    stopped.push(() => ci.stop());

    // Warmed up (queues created, installation tokens fetched): the memory before the run. RSS first: the probe's
    // collection shrinks the heap.
    await sleep(2_000);
    const rssBefore = measured.rssBytes();
    const before = await measured.memoryAfterGc();
    courier.start();
    monitor.start();
    const started = Date.now();

    // Faults, in the background while the traffic runs.
    const faults = new AbortController();
    const kills = (async () => {
      const every = settings.replicas.killEveryMs[dialect];
      while (!faults.signal.aborted) {
        await sleep(every, faults.signal);
        if (faults.signal.aborted) break;
        await victim.kill();
        await victim.start();
      }
    })();
    const outages = (async () => {
      for (let round = 0; !faults.signal.aborted; round++) {
        await sleep(settings.outages.everyMs, faults.signal);
        if (faults.signal.aborted) break;
        const kind = settings.outages.kinds[round % settings.outages.kinds.length];
        if (kind) github.startOutage(kind, settings.outages.durationMs);
      }
    })();

    const spacing = settings.trafficMs / settings.pullRequests;
    for (let index = 0; index < settings.pullRequests; index++) {
      traffic.submitNext();
      traffic.remindUnanswered(isFinal);
      await sleep(spacing);
    }
    faults.abort();
    await Promise.all([kills, outages]);
    await traffic.settle();

    const drainDeadline = Date.now() + settings.drainMs;
    while (Date.now() < drainDeadline && !traffic.pullRequests.every(isFinal)) {
      traffic.remindUnanswered(isFinal);
      await sleep(500);
    }
    const drained = traffic.pullRequests.every(isFinal);
    const durationMs = Date.now() - started;
    monitor.stop();
    await courier.stop();
    ci.stop();
    // Quiet for a moment: work in flight finishes, so what is left in memory is what the process keeps.
    await sleep(3_000);
    const rssAfter = measured.rssBytes();
    const after = await measured.memoryAfterGc();

    const readRecord = async (pr: SubmittedPullRequest) => {
      const [owner, name] = pr.repo.split("/");
      const answer = await api.post("getSubmittedPullRequest", {
        repo: { host, owner, name },
        targetBranch,
        pr: { number: pr.number },
      });
      return answer.status === 200 ? answer.body : null;
    };
    const records = new Map<SubmittedPullRequest, any>();
    for (const pr of traffic.pullRequests) records.set(pr, await readRecord(pr));
    // A record read while the service is between two steps (GitHub merged, the merge not recorded yet) is
    // read again a poll and a tick later: what is still untrue then is untrue.
    const untrue = traffic.pullRequests.filter((pr) => {
      const record = records.get(pr);
      return record && untruth(fake, ci, pr, record) !== null;
    });
    if (untrue.length > 0) await sleep(settings.pollIntervalSeconds * 1000 + settings.tickMs);
    for (const pr of untrue) records.set(pr, await readRecord(pr));
    // The service is stopped before the run is judged, so that every move of a target branch is seen.
    await Promise.all(replicas.map((replica) => replica.stop()));
    courier.observeRest();

    return {
      dialect,
      settings,
      seed,
      github,
      ci,
      courier,
      monitor,
      traffic,
      api,
      replicas,
      measured,
      rssBefore,
      rssAfter,
      before,
      after,
      startedAt: started,
      durationMs,
      drained,
      records,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
