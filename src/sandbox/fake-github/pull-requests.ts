// The pull requests of a repository: their lifecycle (each change sends its `pull_request` webhook), what
// GitHub does to them when branches move, their mergeability, and the checks before a merge.
import type { Commit, CommitGraph } from "./git.ts";
import type { MergeMethod, PlannedCommit } from "./merge-plans.ts";
import { planMerge } from "./merge-plans.ts";
import type { FakeRepository } from "./fake-repository.ts";
import { enforceRequiredChecks, hasFailingCheck, unmetRequiredChecks } from "./required-checks.ts";
import type { PullRequestAction, PullRequestPayload, PullRequestPayloadExtras } from "./webhook-payloads.ts";
import { pullRequestPayload } from "./webhook-payloads.ts";
import type { WebhookDelivery } from "./world.ts";
import { GitHubApiError, notFound, validationFailed } from "./world.ts";

export type MergeableState = "clean" | "dirty" | "blocked" | "behind" | "unstable" | "draft" | "unknown";

export interface Mergeability {
  readonly mergeable: boolean | null;
  readonly rebaseable: boolean | null;
  readonly mergeableState: MergeableState;
}

export const mergeabilityUnknown: Mergeability = {
  mergeable: null,
  rebaseable: null,
  mergeableState: "unknown",
};

export interface PullRequestRecord {
  readonly id: number;
  readonly number: number;
  title: string;
  body: string | null;
  readonly author: string;
  readonly headRef: string;
  headSha: string;
  baseRef: string;
  /** The base branch head when the PR last changed, as GitHub reports `base.sha`. */
  baseSha: string;
  state: "open" | "closed";
  draft: boolean;
  merged: boolean;
  mergedAt: string | null;
  mergedBy: string | null;
  mergeCommitSha: string | null;
  readonly createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  /** Reads left that answer `mergeable: null`, as GitHub does while it computes mergeability in the background. */
  mergeabilityPendingReads: number;
}

export type PullRequestDelivery = WebhookDelivery<"pull_request", PullRequestPayload>;

export type NewPullRequest = Pick<
  PullRequestRecord,
  "title" | "body" | "author" | "headRef" | "baseRef" | "draft"
>;

export interface MergeInput {
  readonly method: MergeMethod;
  readonly sha?: string;
  readonly commitTitle?: string;
  readonly commitMessage?: string;
}

export class PullRequests {
  private readonly records = new Map<number, PullRequestRecord>();

  constructor(
    private readonly repo: FakeRepository,
    private readonly graph: CommitGraph,
  ) {}

  get(number: number): PullRequestRecord {
    const pr = this.records.get(number);
    if (!pr) throw notFound();
    return pr;
  }

  all(): PullRequestRecord[] {
    return [...this.records.values()];
  }

  withOpenHead(sha: string): PullRequestRecord[] {
    return this.all().filter((pr) => pr.state === "open" && pr.headSha === sha);
  }

  /** The commits a PR brings over its base, oldest first. */
  commitsOf(pr: PullRequestRecord): Commit[] {
    return this.graph.commitsSince(this.repo.branch(pr.baseRef) ?? pr.baseSha, pr.headSha);
  }

  has(number: number): boolean {
    return this.records.has(number);
  }

  nextNumber(): number {
    return Math.max(0, ...this.records.keys()) + 1;
  }

  open(number: number, fields: NewPullRequest): PullRequestRecord {
    const now = this.repo.world.now();
    const pr: PullRequestRecord = {
      ...fields,
      id: this.repo.world.nextId(),
      number,
      headSha: this.branchHead(fields.headRef),
      baseSha: this.branchHead(fields.baseRef),
      state: "open",
      merged: false,
      mergedAt: null,
      mergedBy: null,
      mergeCommitSha: null,
      createdAt: now,
      updatedAt: now,
      closedAt: null,
      mergeabilityPendingReads: 0,
    };
    this.records.set(number, pr);
    this.event(pr, "opened", pr.author);
    return pr;
  }

  /** `POST /pulls`, validated as GitHub does. */
  create(
    input: { title?: string; head?: string; base?: string; body?: string | null; draft?: boolean },
    actor: string,
  ): PullRequestRecord {
    const headRef = input.head?.startsWith(`${this.repo.owner}:`)
      ? input.head.slice(this.repo.owner.length + 1)
      : input.head;
    const { base } = input;
    if (!input.title)
      throw validationFailed({ resource: "PullRequest", field: "title", code: "missing_field" });
    if (!headRef || this.repo.branch(headRef) === undefined) {
      throw validationFailed({ resource: "PullRequest", field: "head", code: "invalid" });
    }
    if (!base || this.repo.branch(base) === undefined) {
      throw validationFailed({ resource: "PullRequest", field: "base", code: "invalid" });
    }
    if (this.all().some((pr) => pr.state === "open" && pr.headRef === headRef && pr.baseRef === base)) {
      const message = `A pull request already exists for ${this.repo.owner}:${headRef}.`;
      throw validationFailed({ resource: "PullRequest", code: "custom", message });
    }
    if (this.repo.isAncestor(headRef, base)) {
      throw validationFailed({
        resource: "PullRequest",
        code: "custom",
        message: `No commits between ${base} and ${headRef}`,
      });
    }
    const fields = { title: input.title, body: input.body ?? null, author: actor, headRef, baseRef: base };
    return this.open(this.nextNumber(), { ...fields, draft: input.draft ?? false });
  }

  /** `PATCH /pulls/{n}`: title, body, state and base, each change with its webhook. */
  update(
    number: number,
    input: { title?: string; body?: string; state?: string; base?: string },
    actor: string,
  ): PullRequestRecord {
    const pr = this.get(number);
    if (input.state !== undefined && input.state !== "open" && input.state !== "closed") {
      throw validationFailed({ resource: "PullRequest", field: "state", code: "invalid" });
    }
    if (input.base !== undefined && input.base !== pr.baseRef) {
      if (this.repo.branch(input.base) === undefined) {
        throw validationFailed({ resource: "PullRequest", field: "base", code: "invalid" });
      }
      this.retarget(pr, input.base, actor);
    }
    if (input.title !== undefined && input.title !== pr.title) {
      const from = pr.title;
      pr.title = input.title;
      this.event(pr, "edited", actor, { changes: { title: { from } } });
    }
    if (input.body !== undefined) pr.body = input.body;
    if (input.state === "closed" && pr.state === "open") this.close(pr, actor);
    if (input.state === "open" && pr.state === "closed") this.reopen(pr, actor);
    return pr;
  }

  close(pr: PullRequestRecord, sender: string): PullRequestDelivery {
    if (pr.state !== "open") throw new Error(`PR #${pr.number} is not open`);
    const now = this.repo.world.now();
    Object.assign(pr, { state: "closed", closedAt: now, updatedAt: now });
    return this.event(pr, "closed", sender);
  }

  reopen(pr: PullRequestRecord, sender: string): PullRequestDelivery {
    if (pr.state !== "closed" || pr.merged) throw new GitHubApiError(422, "Cannot reopen this pull request");
    if (this.repo.branch(pr.headRef) === undefined || this.repo.branch(pr.baseRef) === undefined) {
      throw new GitHubApiError(422, "Cannot reopen a pull request whose branch was deleted");
    }
    Object.assign(pr, { state: "open", closedAt: null, updatedAt: this.repo.world.now() });
    return this.event(pr, "reopened", sender);
  }

  setDraft(pr: PullRequestRecord, draft: boolean, sender: string): PullRequestDelivery {
    pr.draft = draft;
    pr.updatedAt = this.repo.world.now();
    return this.event(pr, draft ? "converted_to_draft" : "ready_for_review", sender);
  }

  retarget(pr: PullRequestRecord, branch: string, sender: string): PullRequestDelivery {
    const changes = { base: { ref: { from: pr.baseRef }, sha: { from: pr.baseSha } } };
    pr.baseRef = branch;
    pr.baseSha = this.branchHead(branch);
    pr.updatedAt = this.repo.world.now();
    return this.event(pr, "edited", sender, { changes });
  }

  markMerged(pr: PullRequestRecord, mergeCommitSha: string, by: string): PullRequestDelivery {
    const now = this.repo.world.now();
    Object.assign(pr, {
      state: "closed",
      merged: true,
      mergedAt: now,
      mergedBy: by,
      mergeCommitSha,
      closedAt: now,
      updatedAt: now,
    });
    return this.event(pr, "closed", by);
  }

  /**
   * What GitHub does to open PRs when `branch` moves to `after` (undefined: deleted): PRs whose head branch
   * moved are synchronized; PRs into the branch whose head it now contains are merged (a fast-forward
   * merges them); PRs whose head or base branch was deleted are closed.
   */
  afterBranchMoved(branch: string, after: string | undefined, pusher: string): PullRequestDelivery[] {
    const deliveries: PullRequestDelivery[] = [];
    for (const pr of this.all()) {
      if (pr.state !== "open") continue;
      if (after === undefined) {
        if (pr.headRef === branch || pr.baseRef === branch) deliveries.push(this.close(pr, pusher));
      } else if (pr.headRef === branch) {
        if (pr.headSha === after) continue;
        const before = pr.headSha;
        pr.headSha = after;
        pr.updatedAt = this.repo.world.now();
        deliveries.push(this.event(pr, "synchronize", pusher, { before, after }));
      } else if (pr.baseRef === branch) {
        pr.baseSha = after;
        if (this.graph.isAncestor(pr.headSha, after)) deliveries.push(this.markMerged(pr, after, pusher));
      }
    }
    return deliveries;
  }

  /** GitHub's view of whether the PR can merge, computed now by a trial merge of its head into its base. */
  mergeability(pr: PullRequestRecord): Mergeability {
    const base = this.repo.branch(pr.baseRef);
    if (pr.state === "closed" || base === undefined) return mergeabilityUnknown;
    if (pr.mergeabilityPendingReads > 0) {
      pr.mergeabilityPendingReads -= 1;
      return mergeabilityUnknown;
    }
    const clean = (method: MergeMethod) =>
      planMerge(this.graph, this.subject(pr), base, { method, merger: this.repo.world.appLogin }).kind ===
      "clean";
    const [mergeable, rebaseable] = [clean("merge"), clean("rebase")];
    const { ci, settings } = this.repo;
    let mergeableState: MergeableState = "clean";
    if (!mergeable) mergeableState = "dirty";
    else if (pr.draft) mergeableState = "draft";
    else if (unmetRequiredChecks(ci, settings, pr.baseRef, pr.headSha).length > 0) mergeableState = "blocked";
    else if (settings.protectionOf(pr.baseRef)?.strict && !this.graph.isAncestor(base, pr.headSha)) {
      mergeableState = "behind";
    } else if (hasFailingCheck(ci, pr.headSha)) mergeableState = "unstable";
    return { mergeable, rebaseable, mergeableState };
  }

  /**
   * The checks of `PUT /pulls/{n}/merge`, in GitHub's order (409 for a moved head, 405 for anything that
   * makes the PR unmergeable), then the commits the method adds on top of the base head.
   */
  prepareMerge(
    number: number,
    input: MergeInput,
    actor: string,
  ): { pr: PullRequestRecord; baseSha: string; commits: readonly PlannedCommit[] } {
    const pr = this.get(number);
    const notMergeable = new GitHubApiError(405, "Pull Request is not mergeable");
    const baseSha = this.repo.branch(pr.baseRef);
    if (pr.state !== "open" || baseSha === undefined) throw notMergeable;
    if (input.sha !== undefined && input.sha !== pr.headSha) {
      throw new GitHubApiError(409, "Head branch was modified. Review and try the merge again.");
    }
    if (pr.draft) throw new GitHubApiError(405, "Pull Request is still a draft");
    enforceRequiredChecks(this.repo.ci, this.repo.settings, pr.baseRef, pr.headSha, 405);
    if (this.repo.settings.protectionOf(pr.baseRef)?.strict && !this.graph.isAncestor(baseSha, pr.headSha)) {
      throw new GitHubApiError(405, "Head branch is not up to date with the base branch");
    }
    const plan = planMerge(this.graph, this.subject(pr), baseSha, { ...input, merger: actor });
    if (plan.kind === "conflict") throw notMergeable;
    return { pr, baseSha, commits: plan.commits };
  }

  private subject(pr: PullRequestRecord) {
    return { ...pr, headOwner: this.repo.owner };
  }

  private event(
    pr: PullRequestRecord,
    action: PullRequestAction,
    sender: string,
    extras?: PullRequestPayloadExtras,
  ): PullRequestDelivery {
    return this.repo.world.emit("pull_request", pullRequestPayload(this.repo, pr, action, sender, extras));
  }

  private branchHead(name: string): string {
    const sha = this.repo.branch(name);
    if (sha === undefined) throw new Error(`no branch ${name} in ${this.repo.fullName}`);
    return sha;
  }
}
