// What the fault-injection test watches while it runs: every state each target branch was moved to, every
// commit a test branch held, and how long each queue with work went without progress (no write by the
// queue to GitHub and no CI answer).
import type { AnyWebhookDelivery, PushPayload } from "../../src/sandbox/fake-github/index.ts";
import { developer } from "./traffic.ts";

export interface TargetUpdate {
  readonly repo: string;
  readonly sha: string;
  readonly at: number;
}

export interface Stall {
  readonly repo: string;
  readonly ms: number;
  /** When the longest stall ended (or the run did), ms since the epoch. */
  readonly endedAt: number;
}

const zeroSha = "0".repeat(40);

export class ProgressMonitor {
  readonly targetUpdates: TargetUpdate[] = [];
  private readonly testedCommits = new Set<string>();
  private readonly lastProgress = new Map<string, number>();
  private readonly longest = new Map<string, Stall>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly targetBranch: string,
    private readonly testBranchPrefix: string,
    /** Whether the repository's queue holds PRs that are not merged, failed or cancelled yet. */
    private readonly hasWork: (repo: string) => boolean,
    private readonly repositories: readonly string[],
  ) {}

  observe(delivery: AnyWebhookDelivery): void {
    const payload = delivery.payload as { repository: { full_name: string }; sender: { login: string } };
    const repo = payload.repository.full_name;
    if (payload.sender.login !== developer) this.lastProgress.set(repo, Date.now());
    if (delivery.name !== "push") return;
    const push = delivery.payload as PushPayload;
    if (push.after === zeroSha) return;
    const branch = push.ref.replace(/^refs\/heads\//, "");
    if (branch === this.targetBranch) this.targetUpdates.push({ repo, sha: push.after, at: Date.now() });
    if (branch.startsWith(this.testBranchPrefix)) this.testedCommits.add(`${repo}\0${push.after}`);
  }

  /** Whether `sha` was ever the head of a test branch of `repo`. */
  wasOnTestBranch(repo: string, sha: string): boolean {
    return this.testedCommits.has(`${repo}\0${sha}`);
  }

  start(sampleMs = 250): void {
    this.timer = setInterval(() => this.sample(), sampleMs);
  }

  stop(): void {
    clearInterval(this.timer);
    this.sample();
  }

  /** The longest time each queue had work and made no progress. */
  stalls(): Stall[] {
    return this.repositories.map((repo) => this.longest.get(repo) ?? { repo, ms: 0, endedAt: 0 });
  }

  private sample(): void {
    const now = Date.now();
    for (const repo of this.repositories) {
      if (!this.hasWork(repo)) {
        this.lastProgress.set(repo, now);
        continue;
      }
      const since = this.lastProgress.get(repo);
      if (since === undefined) {
        this.lastProgress.set(repo, now);
        continue;
      }
      const ms = now - since;
      if (ms > (this.longest.get(repo)?.ms ?? 0)) this.longest.set(repo, { repo, ms, endedAt: now });
    }
  }
}
