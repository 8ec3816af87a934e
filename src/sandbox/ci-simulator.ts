// Simulated CI, for the sandbox and the fault-injection test: every push to a test branch starts a run on its head,
// which reports a commit status and a check run (the queue's two required contexts) after a random delay. A run
// fails when the commit holds a broken change, now and then when it holds a flaky one, and now and then for no
// reason (a flake). A newer push to the same branch cancels the run of the older head, as CI's concurrency groups do.
import type { AnyWebhookDelivery, FakeGitHub, PushPayload } from "./fake-github/index.ts";

/** What a change's file holds when the change breaks the build. */
export const brokenContent = "broken\n";
/** What a change's file holds when it brings a flaky test: every run holding it fails now and then. */
export const flakyContent = "flaky\n";
/** How often a run that holds a flaky change fails because of it. */
const flakyChangeFailureRate = 0.3;

export interface CiRun {
  readonly repo: string;
  readonly branch: string;
  readonly sha: string;
  readonly passed: boolean;
  /** Failed though the commit is fine. */
  readonly flaked: boolean;
  readonly reportedAt: number;
}

/** How CI behaves: the contexts it reports (a commit status, then a check run), its delays and its flakes. */
export interface CiSettings {
  readonly requiredStatuses: readonly [status: string, checkRun: string];
  readonly ci: {
    /** A run that fails once for no reason of its own. */
    readonly flakeRate: number;
    readonly minDelayMs: number;
    readonly maxDelayMs: number;
  };
}

const zeroSha = "0".repeat(40);

export class CiSimulator {
  /** Every run that reported, in order. */
  readonly runs: CiRun[] = [];
  private readonly started = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly fake: FakeGitHub,
    private readonly settings: CiSettings,
    private readonly random: () => number,
    private readonly testBranchPrefix: string,
  ) {}

  /** Sees every webhook GitHub emits; acts on pushes to test branches. */
  observe(delivery: AnyWebhookDelivery): void {
    if (delivery.name !== "push") return;
    const push = delivery.payload as PushPayload;
    const branch = push.ref.replace(/^refs\/heads\//, "");
    if (!branch.startsWith(this.testBranchPrefix)) return;
    const key = `${push.repository.full_name}\0${branch}`;
    clearTimeout(this.started.get(key));
    this.started.delete(key);
    if (push.after === zeroSha) return;
    const { minDelayMs, maxDelayMs } = this.settings.ci;
    const delay = minDelayMs + this.random() * (maxDelayMs - minDelayMs);
    const flake = this.random() < this.settings.ci.flakeRate;
    const flakyChangeFails = this.random() < flakyChangeFailureRate;
    const timer = setTimeout(() => {
      this.started.delete(key);
      this.report(push.repository.full_name, branch, push.after, flake, flakyChangeFails);
    }, delay);
    this.started.set(key, timer);
  }

  /** Whether CI reported success on `sha` for every context it reports. */
  passedOn(repo: string, sha: string): boolean {
    return this.runs.some((run) => run.repo === repo && run.sha === sha && run.passed);
  }

  stop(): void {
    for (const timer of this.started.values()) clearTimeout(timer);
    this.started.clear();
  }

  private report(
    repoName: string,
    branch: string,
    sha: string,
    flake: boolean,
    flakyChangeFails: boolean,
  ): void {
    const repo = this.fake.repository(repoName);
    const contents = [...repo.commitOf(sha).tree.values()];
    const broken = contents.includes(brokenContent);
    const passed = !broken && !flake && !(flakyChangeFails && contents.includes(flakyContent));
    const [status, check] = this.settings.requiredStatuses;
    repo.reportStatus(sha, status, passed ? "success" : "failure", {
      targetUrl: `https://ci.example/${sha.slice(0, 12)}`,
      description: passed ? "Build passed" : "Build failed",
    });
    repo.reportCheckRun(sha, check, { conclusion: passed ? "success" : "failure" });
    this.runs.push({
      repo: repoName,
      branch,
      sha,
      passed,
      flaked: !passed && !broken,
      reportedAt: Date.now(),
    });
  }
}
