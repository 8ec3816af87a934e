import type { QueueCommand, QueueEvent, TestBranchMerge } from "../../src/queue/index.ts";

/** A commit of the fake repository: what it holds is the list of changes applied since the root. */
interface FakeCommit {
  readonly sha: string;
  readonly parent: string | null;
  readonly content: readonly string[];
}

export interface FakePullRequest {
  readonly number: number;
  head: string;
  /** CI fails on every commit holding any head of this PR. */
  bad: boolean;
  /** Merging it into a test branch conflicts. */
  conflicts: boolean;
  /** GitHub refuses to merge it (e.g. a missing review). */
  rejected: boolean;
  mergeable: boolean;
  merged: boolean;
  mergeSha: string | null;
}

/** What executing one command did: the result events for the queue, and webhooks GitHub sends later. */
export interface Execution {
  readonly results: readonly QueueEvent[];
  readonly webhooks: readonly QueueEvent[];
}

/** What merging one head of a PR adds to a commit. */
export function change(prNumber: number, headSha: string): string {
  return `#${prNumber}@${headSha}`;
}

/** Impacted targets (docs/queue.md#lanes): PRs whose targets do not intersect cannot break each other's tests. */
export type Targets = readonly string[] | "ALL";

function intersect(a: Targets, b: Targets): boolean {
  if (a.length === 0 || b.length === 0) return false;
  return a === "ALL" || b === "ALL" || a.some((target) => b.includes(target));
}

/**
 * A tiny stateful GitHub for the property tests: commits with deterministic SHAs, branches, PRs, merges
 * and CI reports. It executes the queue's commands idempotently, as the real executor must, and checks
 * the Not Rocket Science rule on every move of the target branch it is asked to make.
 */
export class FakeGitHub {
  readonly targetBranch = "main";
  target: string;
  readonly branches = new Map<string, string>();
  readonly testPullRequests = new Set<string>();
  readonly prs = new Map<number, FakePullRequest>();
  /** What the repository requires (config file or branch protection) when the queue sets nothing. */
  repoRequiredStatuses: readonly string[] = ["ci"];
  /** Commits a success of the required check `ci` was reported on: what "tested" means. */
  readonly passed = new Set<string>();
  /** The targets each change (`change(pr, head)`) impacts, fixed when first set: a fact of its code. */
  private readonly targets = new Map<string, Targets>();
  private readonly commits = new Map<string, FakeCommit>();
  private readonly mergeCommits = new Map<string, string>();
  private nextCommit = 1;
  private nextReport = 1;
  private outsidePushes = 0;

  constructor() {
    this.target = this.commit(null, []);
  }

  private commit(parent: string | null, content: readonly string[]): string {
    const sha = `c${this.nextCommit++}`;
    this.commits.set(sha, { sha, parent, content });
    return sha;
  }

  /**
   * The merge commit of a PR head on `parent`. Like git's, a merge commit is named by what it holds: merging
   * the same head (with the same message and date) on the same commit makes the same commit again.
   */
  private mergeCommit(parent: string, pr: TestBranchMerge): string {
    const key = `${parent}+${change(pr.number, pr.headSha)}@${pr.commitDate}:${pr.title}`;
    let sha = this.mergeCommits.get(key);
    if (sha === undefined) {
      sha = this.commit(parent, [...this.contentOf(parent), change(pr.number, pr.headSha)]);
      this.mergeCommits.set(key, sha);
    }
    return sha;
  }

  contentOf(sha: string): readonly string[] {
    const commit = this.commits.get(sha);
    if (commit === undefined) throw new Error(`unknown commit ${sha}`);
    return commit.content;
  }

  private isAncestor(ancestor: string, sha: string): boolean {
    for (let at: string | null = sha; at !== null; at = this.commits.get(at)?.parent ?? null) {
      if (at === ancestor) return true;
    }
    return false;
  }

  /** The targets of a PR's head: those given the first time they are set, the facts of that code. */
  targetsOf(prNumber: number, headSha: string, proposed: Targets): Targets {
    const token = change(prNumber, headSha);
    const known = this.targets.get(token) ?? proposed;
    this.targets.set(token, known);
    return known;
  }

  /** Whether two changes cannot affect each other's tests: both PRs' with disjoint targets. */
  independent(a: string, b: string): boolean {
    const targetsOfA = this.targets.get(a);
    const targetsOfB = this.targets.get(b);
    return targetsOfA !== undefined && targetsOfB !== undefined && !intersect(targetsOfA, targetsOfB);
  }

  /**
   * Not Rocket Science, one PR at a time (docs/queue.md#merging, #merging-in-lanes): `content` ends with the PR's change and holds a
   * passed commit's content up to it, in its order except where two independent changes swapped places (lanes
   * merge in their own order), and besides it only changes each independent of every tested change it came
   * before (merges of other lanes since that commit's run started: they cannot change what its tests saw).
   */
  private isTested(content: readonly string[]): boolean {
    const last = content.at(-1) as string;
    return [...this.passed].some((sha) => {
      const passed = this.contentOf(sha);
      const upTo = passed.indexOf(last);
      if (upTo < 0) return false;
      const tested = passed.slice(0, upTo + 1);
      if (!tested.every((token) => content.includes(token))) return false;
      return content.every((token, index) => {
        const place = tested.indexOf(token);
        return content
          .slice(index + 1)
          .filter((later) => tested.includes(later))
          .every((later) => (place >= 0 && tested.indexOf(later) > place) || this.independent(token, later));
      });
    });
  }

  /** The heads of every test branch ever created, in creation order: CI reports on these. */
  readonly testBranchCommits: string[] = [];

  pullRequest(number: number): FakePullRequest {
    let pr = this.prs.get(number);
    if (pr === undefined) {
      pr = {
        number,
        head: `h${number}.0`,
        bad: false,
        conflicts: false,
        rejected: false,
        mergeable: true,
        merged: false,
        mergeSha: null,
      };
      this.prs.set(number, pr);
    }
    return pr;
  }

  /** New commits pushed to a PR. */
  pushToPullRequest(number: number): QueueEvent {
    const pr = this.pullRequest(number);
    const version = Number(pr.head.split(".")[1]) + 1;
    pr.head = `h${number}.${version}`;
    return { type: "cancel_requested", prNumber: number, reason: "pr_updated" };
  }

  /** Someone pushes to the target branch outside the queue. */
  pushOutside(): QueueEvent {
    this.outsidePushes++;
    this.target = this.commit(this.target, [...this.contentOf(this.target), `outside-${this.outsidePushes}`]);
    return { type: "target_branch_moved", sha: this.target };
  }

  /** CI reports the `ci` check on a commit: the in-progress and completed webhooks of one check run. */
  ciReports(sha: string, outcome: "pass" | "fail" | "flake" | "pending"): QueueEvent[] {
    const id = this.nextReport++;
    const holdsBadPr = this.contentOf(sha).some((token) =>
      [...this.prs.values()].some((pr) => pr.bad && token.startsWith(`#${pr.number}@`)),
    );
    const url = `https://ci.example/${id}`;
    const inProgress: QueueEvent = {
      type: "status_reported",
      sha,
      report: {
        kind: "check_run",
        name: "ci",
        id,
        status: "in_progress",
        conclusion: null,
        url,
        checkSuiteId: 1,
      },
    };
    if (outcome === "pending") return [inProgress];
    const conclusion = outcome === "pass" && !holdsBadPr ? "success" : "failure";
    return [
      inProgress,
      {
        type: "status_reported",
        sha,
        report: { kind: "check_run", name: "ci", id, status: "completed", conclusion, url, checkSuiteId: 1 },
      },
    ];
  }

  /** A commit counts as tested once a success of the required check on it reached the queue. */
  observeDelivery(event: QueueEvent): void {
    if (event.type !== "status_reported" || event.report.kind !== "check_run") return;
    if (event.report.status === "completed" && event.report.conclusion === "success")
      this.passed.add(event.sha);
  }

  execute(command: QueueCommand): Execution {
    switch (command.type) {
      case "create_test_branch":
        return this.createTestBranch(command);
      case "delete_test_branch":
        this.branches.delete(command.branch);
        return { results: [], webhooks: [] };
      case "open_test_pull_request":
        if (!this.branches.has(command.branch))
          throw new Error(`test PR for missing branch ${command.branch}`);
        this.testPullRequests.add(command.branch);
        return { results: [], webhooks: [] };
      case "close_test_pull_request":
        this.testPullRequests.delete(command.branch);
        return { results: [], webhooks: [] };
      case "fast_forward_target":
        return this.fastForward(command);
      case "merge_pull_request":
        return this.mergePullRequest(command);
      case "check_direct_merge":
        // A PR head here is a change applied onto a commit, never a commit that holds the target.
        return {
          results: [
            {
              type: "direct_merge_checked",
              prNumber: command.prNumber,
              headSha: command.headSha,
              targetSha: command.targetSha,
              facts: { kind: "read", containsTarget: false, requiredStatuses: [], reports: [] },
            },
          ],
          webhooks: [],
        };
      case "set_commit_status":
      case "upsert_pr_comment":
        return { results: [], webhooks: [] };
    }
  }

  private createTestBranch(command: Extract<QueueCommand, { type: "create_test_branch" }>): Execution {
    const resolution: QueueEvent[] =
      command.resolveRequiredStatusesOf === null
        ? []
        : [
            {
              type: "required_statuses_resolved",
              runId: command.runId,
              statuses: this.repoRequiredStatuses,
              source: "service_config",
            },
          ];
    // Nothing to test, so nothing is built.
    if (resolution.length > 0 && this.repoRequiredStatuses.length === 0)
      return { results: resolution, webhooks: [] };
    const built = (result: QueueEvent): Execution => ({ results: [...resolution, result], webhooks: [] });
    const existing = this.branches.get(command.branch);
    if (existing !== undefined)
      return built({ type: "test_branch_created", runId: command.runId, sha: existing });
    let sha = command.baseSha;
    for (const pr of command.prs) {
      if (this.pullRequest(pr.number).conflicts)
        return built({ type: "test_branch_conflict", runId: command.runId, prNumber: pr.number });
      sha = this.mergeCommit(sha, pr);
    }
    this.branches.set(command.branch, sha);
    this.testBranchCommits.push(sha);
    return built({ type: "test_branch_created", runId: command.runId, sha });
  }

  private moveTarget(sha: string, prNumbers: readonly number[]): readonly QueueEvent[] {
    this.target = sha;
    for (const number of prNumbers) {
      const pr = this.pullRequest(number);
      pr.merged = true;
      pr.mergeSha = sha;
    }
    return [
      { type: "target_branch_moved", sha },
      ...prNumbers.map((prNumber): QueueEvent => ({
        type: "cancel_requested",
        prNumber,
        reason: "merged_outside_queue",
      })),
    ];
  }

  private fastForward(command: Extract<QueueCommand, { type: "fast_forward_target" }>): Execution {
    const succeeded: QueueEvent = { type: "merge_succeeded", mergeId: command.mergeId, sha: command.sha };
    if (this.target === command.sha) return { results: [succeeded], webhooks: [] };
    // A retry after the first attempt moved the branch (its answer lost) and someone pushed on top since.
    if (this.target !== command.expectedHeadSha && this.isAncestor(command.sha, this.target)) {
      return { results: [succeeded], webhooks: [] };
    }
    // The queue expects the head GitHub has, so the tested commit must be built on it: else git refuses the
    // fast-forward, and the queue would take its own head for a push from outside.
    if (this.target === command.expectedHeadSha && !this.isAncestor(this.target, command.sha))
      throw new Error(
        `tested commit ${command.sha} does not descend from ${this.targetBranch} ${this.target}`,
      );
    if (this.target !== command.expectedHeadSha) {
      return {
        results: [
          {
            type: "merge_failed",
            mergeId: command.mergeId,
            prNumber: command.prNumbers[0] as number,
            failure: { kind: "target_moved", headSha: this.target },
          },
        ],
        webhooks: [],
      };
    }
    // Not Rocket Science: the target only ever moves to a commit that passed its required statuses.
    if (!this.passed.has(command.sha))
      throw new Error(`fast-forward of ${this.targetBranch} to untested ${command.sha}`);
    return { results: [succeeded], webhooks: this.moveTarget(command.sha, command.prNumbers) };
  }

  private mergePullRequest(command: Extract<QueueCommand, { type: "merge_pull_request" }>): Execution {
    const pr = this.pullRequest(command.prNumber);
    const failed = (failure: Extract<QueueEvent, { type: "merge_failed" }>["failure"]): Execution => ({
      results: [{ type: "merge_failed", mergeId: command.mergeId, prNumber: pr.number, failure }],
      webhooks: [],
    });
    if (pr.merged && pr.mergeSha !== null) {
      return {
        results: [{ type: "merge_succeeded", mergeId: command.mergeId, sha: pr.mergeSha }],
        webhooks: [],
      };
    }
    if (this.target !== command.expectedTargetSha)
      return failed({ kind: "target_moved", headSha: this.target });
    if (pr.head !== command.headSha) return failed({ kind: "pr_head_moved" });
    if (pr.rejected) return failed({ kind: "rejected", message: "Review required" });
    const content = [...this.contentOf(this.target), change(pr.number, command.headSha)];
    if (!this.isTested(content))
      throw new Error(`merge of #${pr.number} makes ${this.targetBranch} hold untested ${content.join(" ")}`);
    const sha = this.commit(this.target, content);
    return {
      results: [{ type: "merge_succeeded", mergeId: command.mergeId, sha }],
      webhooks: this.moveTarget(sha, [pr.number]),
    };
  }
}
