// One repository of the fake GitHub: branches over a commit graph, with its pull requests, CI results,
// comments and settings. Test-facing actions come first (they act as a person or CI, bypass protection, and
// return the webhook GitHub would send); the REST operations the routes call follow, validating as GitHub does.
import type { CheckRunReport, CheckRunRecord, CommitStatusRecord, StatusState } from "./check-results.ts";
import { CiRecords } from "./check-results.ts";
import type { CommentRecord, ReactionRecord } from "./conversation.ts";
import { Conversation } from "./conversation.ts";
import type { Commit, FileChanges, NewCommit } from "./git.ts";
import { applyChanges, CommitGraph, emptyTree } from "./git.ts";
import type { MergeInput, PullRequestDelivery, PullRequestRecord } from "./pull-requests.ts";
import { PullRequests } from "./pull-requests.ts";
import { BranchRuleModel, type ChangePath } from "./rule-enforcement.ts";
import { enforceRequiredChecks } from "./required-checks.ts";
import type { BranchProtection, Role } from "./repository-settings.ts";
import { RepositorySettings } from "./repository-settings.ts";
import type {
  CheckRunPayload,
  CheckSuitePayload,
  IssueCommentPayload,
  StatusPayload,
} from "./webhook-payloads.ts";
import {
  checkRunPayload,
  checkSuitePayload,
  issueCommentPayload,
  pushPayload,
  statusPayload,
} from "./webhook-payloads.ts";
import type { WebhookDelivery, World } from "./world.ts";
import { GitHubApiError } from "./world.ts";

export interface RepositoryOptions {
  readonly defaultBranch?: string;
  /** The files of the initial commit on the default branch. */
  readonly files?: FileChanges;
  /** The GitHub App's installation on this repository; none means the app is not installed. */
  readonly installationId?: number;
  readonly private?: boolean;
  readonly ownerType?: "User" | "Organization";
}

export interface OpenPullRequestOptions {
  readonly number?: number;
  readonly title: string;
  readonly author: string;
  /** The files the PR's single commit changes (null deletes); its message is the title. */
  readonly files: FileChanges;
  readonly base?: string;
  /** `feature-<number>` unless told. */
  readonly headBranch?: string;
  readonly body?: string;
  readonly draft?: boolean;
}

export interface StatusReportOptions {
  readonly targetUrl?: string;
  readonly description?: string;
  /** Who posts the status; `ci-bot` unless told. */
  readonly creator?: string;
}

export type CheckDelivery =
  WebhookDelivery<"check_run", CheckRunPayload> | WebhookDelivery<"check_suite", CheckSuitePayload>;
export type StatusDelivery = WebhookDelivery<"status", StatusPayload>;
export type IssueCommentDelivery = WebhookDelivery<"issue_comment", IssueCommentPayload>;

export class FakeRepository {
  readonly id: number;
  readonly owner: string;
  readonly name: string;
  readonly fullName: string;
  readonly defaultBranch: string;
  readonly isPrivate: boolean;
  readonly ownerType: "User" | "Organization";
  readonly installationId: number | undefined;
  readonly apiUrl: string;
  readonly htmlUrl: string;
  readonly ci: CiRecords;
  readonly conversation: Conversation;
  readonly settings = new RepositorySettings();
  readonly pulls: PullRequests;
  /** Signatures, linear history, locks: rules that refuse a change for what it brings (rule-enforcement.ts). */
  readonly rules: BranchRuleModel = new BranchRuleModel(this, (branch) => this.settings.protectionOf(branch));
  private readonly graph = new CommitGraph();
  private readonly refs = new Map<string, string>();

  constructor(
    readonly world: World,
    fullName: string,
    options: RepositoryOptions = {},
  ) {
    const [owner, name, ...rest] = fullName.split("/");
    if (!owner || !name || rest.length > 0) throw new Error(`"${fullName}" is not owner/name`);
    this.owner = owner;
    this.name = name;
    this.fullName = fullName;
    this.id = world.idFor(`repository:${fullName}`);
    this.defaultBranch = options.defaultBranch ?? "main";
    this.isPrivate = options.private ?? false;
    this.ownerType = options.ownerType ?? "Organization";
    this.installationId = options.installationId;
    this.apiUrl = `${world.apiUrl}/repos/${fullName}`;
    this.htmlUrl = `${world.webUrl}/${fullName}`;
    this.ci = new CiRecords(world);
    this.conversation = new Conversation(world);
    this.pulls = new PullRequests(this, this.graph);
    const initial = this.graph.add({
      parents: [],
      tree: applyChanges(emptyTree, options.files ?? { "README.md": `# ${name}\n` }),
      message: "Initial commit",
      author: owner,
      date: world.now(),
    });
    this.refs.set(this.defaultBranch, initial.sha);
  }

  // ── Test-facing actions ──────────────────────────────────────────────────────────────────────────────

  /** Pushes one commit changing `files` on `branch`; its SHA. */
  commit(branch: string, files: FileChanges, message = "Update files", author = this.owner): string {
    const commit = this.addCommit(this.requireCommit(branch, "branch").sha, files, message, author);
    this.moveBranch(branch, commit.sha, author);
    return commit.sha;
  }

  /** Creates `name` at `from` (a branch or a SHA; the default branch unless told); its SHA. */
  createBranch(name: string, from: string = this.defaultBranch, pusher = this.owner): string {
    if (this.refs.has(name)) throw new Error(`branch ${name} already exists in ${this.fullName}`);
    const { sha } = this.requireCommit(from);
    this.moveBranch(name, sha, pusher);
    return sha;
  }

  deleteBranch(name: string, pusher = this.owner): void {
    this.requireCommit(name, "branch");
    this.moveBranch(name, undefined, pusher);
  }

  /** Opens a PR whose new head branch holds one commit on top of the base; a snapshot of it. */
  openPullRequest(options: OpenPullRequestOptions): Readonly<PullRequestRecord> {
    const number = options.number ?? this.pulls.nextNumber();
    if (this.pulls.has(number)) throw new Error(`PR #${number} already exists in ${this.fullName}`);
    const base = options.base ?? this.defaultBranch;
    const headRef = options.headBranch ?? `feature-${number}`;
    if (this.refs.has(headRef)) throw new Error(`branch ${headRef} already exists in ${this.fullName}`);
    const head = this.addCommit(
      this.requireCommit(base, "branch").sha,
      options.files,
      options.title,
      options.author,
    );
    this.moveBranch(headRef, head.sha, options.author);
    const pr = this.pulls.open(number, {
      title: options.title,
      body: options.body ?? null,
      author: options.author,
      headRef,
      baseRef: base,
      draft: options.draft ?? false,
    });
    return { ...pr };
  }

  /** The PR's author pushes a commit to its head branch; the `synchronize` webhook (`before`/`after`). */
  pushToPullRequest(
    number: number,
    files: FileChanges,
    message = "Update pull request",
  ): PullRequestDelivery {
    const pr = this.pulls.get(number);
    if (pr.state !== "open") throw new Error(`PR #${number} is not open`);
    const commit = this.addCommit(pr.headSha, files, message, pr.author);
    const synchronized = this.moveBranch(pr.headRef, commit.sha, pr.author);
    return synchronized.find((delivery) => delivery.payload.number === number) as PullRequestDelivery;
  }

  closePullRequest(number: number, sender?: string): PullRequestDelivery {
    const pr = this.pulls.get(number);
    return this.pulls.close(pr, sender ?? pr.author);
  }

  reopenPullRequest(number: number, sender?: string): PullRequestDelivery {
    const pr = this.pulls.get(number);
    return this.pulls.reopen(pr, sender ?? pr.author);
  }

  convertToDraft(number: number, sender?: string): PullRequestDelivery {
    const pr = this.pulls.get(number);
    return this.pulls.setDraft(pr, true, sender ?? pr.author);
  }

  markReadyForReview(number: number, sender?: string): PullRequestDelivery {
    const pr = this.pulls.get(number);
    return this.pulls.setDraft(pr, false, sender ?? pr.author);
  }

  /** Retargets the PR; the `edited` webhook with `changes.base`. */
  changeBase(number: number, branch: string, sender?: string): PullRequestDelivery {
    const pr = this.pulls.get(number);
    this.requireCommit(branch, "branch");
    return this.pulls.retarget(pr, branch, sender ?? pr.author);
  }

  /** The next `reads` reads of the PR answer `mergeable: null` (GitHub still computing). */
  setMergeabilityPending(number: number, reads = 1): void {
    this.pulls.get(number).mergeabilityPendingReads = reads;
  }

  /** A person comments on the PR; the `issue_comment` `created` webhook. */
  comment(number: number, author: string, body: string): IssueCommentDelivery {
    return this.addComment(number, author, body).delivery;
  }

  setPermission(login: string, role: Role): void {
    this.settings.setRole(login, role);
  }

  /** Protects `branch`: its required checks gate merges and pushes through the API, and force-pushes are refused. */
  protectBranch(branch: string, protection: BranchProtection = {}): void {
    this.settings.protect(branch, protection);
  }

  /** An active ruleset on `branch` requiring `contexts`. */
  addRuleset(branch: string, contexts: readonly string[]): void {
    this.settings.addRuleset({ id: this.world.nextId(), branch, requiredChecks: contexts });
  }

  /** CI posts a commit status; the `status` webhook. */
  reportStatus(
    sha: string,
    context: string,
    state: StatusState,
    options: StatusReportOptions = {},
  ): StatusDelivery {
    const input = {
      state,
      context,
      description: options.description ?? null,
      targetUrl: options.targetUrl ?? null,
    };
    return this.addStatus(this.requireCommit(sha).sha, input, options.creator ?? "ci-bot").delivery;
  }

  /**
   * CI creates or updates a check run; the webhooks in GitHub's order: `check_run` `created` for a new run,
   * `check_run` `completed` once it completes, and `check_suite` `completed` when that finishes its suite.
   */
  reportCheckRun(
    sha: string,
    name: string,
    report: CheckRunReport = { conclusion: "success" },
  ): CheckDelivery[] {
    const commit = this.requireCommit(sha);
    const change = this.ci.reportCheckRun(commit.sha, this.branchesAt(commit.sha)[0] ?? null, name, report);
    const sender = `${change.run.app}[bot]`;
    const deliveries: CheckDelivery[] = [];
    if (change.created) deliveries.push(this.checkRunEvent(change.run, "created", sender));
    if (change.completedNow) deliveries.push(this.checkRunEvent(change.run, "completed", sender));
    if (change.suiteCompleted) {
      const payload = checkSuitePayload(this, change.suiteCompleted, "completed", sender);
      deliveries.push(this.world.emit("check_suite", payload));
    }
    return deliveries;
  }

  // ── Inspection ───────────────────────────────────────────────────────────────────────────────────────

  /** The head SHA of a branch, or undefined. */
  branch(name: string): string | undefined {
    return this.refs.get(name);
  }

  branches(): string[] {
    return [...this.refs.keys()].sort();
  }

  /** The branches whose head is `sha`. */
  branchesAt(sha: string): string[] {
    return this.branches().filter((name) => this.refs.get(name) === sha);
  }

  commitOf(sha: string): Commit {
    return this.graph.get(sha);
  }

  /** The content of `path` at a branch or commit, or undefined. */
  fileAt(ref: string, path: string): string | undefined {
    return this.requireCommit(ref).tree.get(path);
  }

  commitHasFile(ref: string, path: string): boolean {
    return this.fileAt(ref, path) !== undefined;
  }

  /** First-parent commit messages of a branch (or commit), newest first. */
  log(ref: string): string[] {
    return this.graph.firstParentLog(this.requireCommit(ref).sha).map((commit) => commit.message);
  }

  /** Whether `ancestor` (branch or SHA) is contained in `descendant` (branch or SHA). */
  isAncestor(ancestor: string, descendant: string): boolean {
    return this.graph.isAncestor(this.requireCommit(ancestor).sha, this.requireCommit(descendant).sha);
  }

  mergeBase(a: string, b: string): Commit | undefined {
    const sha = this.graph.mergeBase(this.requireCommit(a).sha, this.requireCommit(b).sha);
    return sha === undefined ? undefined : this.graph.get(sha);
  }

  /** Commits `after` adds over `before`, oldest first. */
  commitsBetween(before: string, after: string): Commit[] {
    return this.graph.reachableOnlyFrom(after, before);
  }

  /** Commits of `sha` on no branch but `branch`: what creating `branch` brings to the repository. */
  commitsOnlyOn(branch: string, sha: string): Commit[] {
    const others = this.branches().filter((name) => name !== branch);
    return this.graph.reachableOnlyFrom(sha, ...others.map((name) => this.refs.get(name) as string));
  }

  /** A snapshot of the PR. */
  pullRequest(number: number): Readonly<PullRequestRecord> {
    return { ...this.pulls.get(number) };
  }

  pullRequests(): Readonly<PullRequestRecord>[] {
    return this.pulls.all().map((pr) => ({ ...pr }));
  }

  comments(number: number): readonly Readonly<CommentRecord>[] {
    return this.conversation.commentsOn(number).map((comment) => ({ ...comment }));
  }

  reactions(commentId: number): readonly ReactionRecord[] {
    return this.conversation.reactionsTo(commentId);
  }

  /** Every commit status on a commit (branch or SHA), newest first. */
  statuses(ref: string): readonly CommitStatusRecord[] {
    return this.ci.statusesOf(this.requireCommit(ref).sha);
  }

  /** Every check run on a commit (branch or SHA), newest first. */
  checkRuns(ref: string): readonly Readonly<CheckRunRecord>[] {
    return this.ci.checkRunsOf(this.requireCommit(ref).sha, "all").map((run) => ({ ...run }));
  }

  // ── REST operations (called by the routes, as the authenticated actor) ─────────────────────────────────

  /** A SHA (full or abbreviated), a branch name, `heads/<branch>` or `refs/heads/<branch>`. */
  resolve(ref: string): Commit | undefined {
    const branch = ref.replace(/^refs\/heads\//, "").replace(/^heads\//, "");
    const sha = this.refs.get(ref) ?? this.refs.get(branch);
    return sha === undefined ? this.graph.resolveSha(ref) : this.graph.get(sha);
  }

  createRef(ref: string, sha: string, actor: string): void {
    if (!/^refs\/heads\/.+/.test(ref)) throw new GitHubApiError(422, "Reference name is invalid");
    const branch = ref.slice("refs/heads/".length);
    if (!this.graph.find(sha)) throw new GitHubApiError(422, "Object does not exist");
    if (this.refs.has(branch)) throw new GitHubApiError(422, "Reference already exists");
    this.enforceRules(branch, undefined, sha, "push");
    this.moveBranch(branch, sha, actor);
  }

  updateRef(branch: string, sha: string, force: boolean, actor: string): void {
    const current = this.refs.get(branch);
    if (current === undefined) throw new GitHubApiError(422, "Reference does not exist");
    if (!this.graph.find(sha)) throw new GitHubApiError(422, "Object does not exist");
    const fastForward = this.graph.isAncestor(current, sha);
    if (!fastForward && this.settings.protectionOf(branch)) {
      throw new GitHubApiError(422, "Cannot force-push to this branch");
    }
    if (!fastForward && !force) throw new GitHubApiError(422, "Update is not a fast forward");
    this.enforceRules(branch, current, sha, "push");
    enforceRequiredChecks(this.ci, this.settings, branch, sha, 422);
    this.moveBranch(branch, sha, actor);
  }

  deleteRef(branch: string, actor: string): void {
    if (!this.refs.has(branch)) throw new GitHubApiError(422, "Reference does not exist");
    this.moveBranch(branch, undefined, actor);
  }

  /** `POST /git/commits`: a commit of a tree some commit already holds, on existing parents; no branch moves. */
  createCommit(treeSha: string, commit: Omit<NewCommit, "tree">): Commit {
    const tree = this.graph.tree(treeSha);
    if (tree === undefined) throw new GitHubApiError(422, "Tree SHA does not exist");
    if (commit.parents.some((sha) => this.graph.find(sha) === undefined))
      throw new GitHubApiError(422, "Parent SHA does not exist or is not a commit object");
    return this.graph.add({ ...commit, tree });
  }

  /** `POST /merges`: a merge commit on `base`, or undefined when `head` is already in it (GitHub's 204). */
  mergeIntoBranch(
    base: string,
    head: string,
    message: string | undefined,
    actor: string,
  ): Commit | undefined {
    const baseSha = this.refs.get(base);
    if (baseSha === undefined) throw new GitHubApiError(404, "Base does not exist");
    const headCommit = this.resolve(head);
    if (!headCommit) throw new GitHubApiError(404, "Head does not exist");
    if (this.graph.isAncestor(headCommit.sha, baseSha)) return undefined;
    const merged = this.graph.mergeCommits(baseSha, headCommit.sha);
    if (merged.kind === "conflict") throw new GitHubApiError(409, "Merge conflict");
    const commit = this.graph.add({
      parents: [baseSha, headCommit.sha],
      tree: merged.tree,
      message: message ?? `Merge ${head} into ${base}`,
      author: actor,
      date: this.world.now(),
    });
    this.enforceRules(base, baseSha, commit.sha, "merges_api");
    enforceRequiredChecks(this.ci, this.settings, base, commit.sha, 409);
    this.moveBranch(base, commit.sha, actor);
    return commit;
  }

  /** `PUT /pulls/{n}/merge`: moves the base branch as the method says and marks the PR merged. */
  mergePullRequest(number: number, input: MergeInput, actor: string): Commit {
    const { pr, baseSha, commits } = this.pulls.prepareMerge(number, input, actor);
    let head = this.graph.get(baseSha);
    for (const planned of commits) {
      head = this.graph.add({
        parents: [head.sha, ...planned.otherParents],
        tree: planned.tree,
        message: planned.message,
        author: planned.author,
        date: this.world.now(),
      });
    }
    this.enforceRules(pr.baseRef, baseSha, head.sha, "pull_request_merge");
    // A merge commit contains the head, so moving the branch marks the PR merged; squash and rebase do not.
    this.moveBranch(pr.baseRef, head.sha, actor);
    if (!pr.merged) this.pulls.markMerged(pr, head.sha, actor);
    return head;
  }

  addStatus(
    sha: string,
    input: { state: string; context?: string; description?: string | null; targetUrl?: string | null },
    creator: string,
  ): { status: CommitStatusRecord; delivery: StatusDelivery } {
    const status = this.ci.addStatus(sha, input, creator);
    return { status, delivery: this.world.emit("status", statusPayload(this, status)) };
  }

  addComment(
    number: number,
    author: string,
    body: string,
  ): { comment: CommentRecord; delivery: IssueCommentDelivery } {
    const pr = this.pulls.get(number);
    const comment = this.conversation.addComment(pr.number, author, body);
    const delivery = this.world.emit(
      "issue_comment",
      issueCommentPayload(this, pr, comment, "created", author),
    );
    return { comment, delivery };
  }

  editComment(id: number, body: string, actor: string): CommentRecord {
    const comment = this.conversation.comment(id);
    const changes = { body: { from: comment.body } };
    this.conversation.editComment(id, body);
    const pr = this.pulls.get(comment.issueNumber);
    this.world.emit("issue_comment", issueCommentPayload(this, pr, comment, "edited", actor, changes));
    return comment;
  }

  // ── Internals ────────────────────────────────────────────────────────────────────────────────────────

  /** What moving `branch` from `before` (undefined: creating it) to `after` brings, checked against its rules. */
  private enforceRules(branch: string, before: string | undefined, after: string, path: ChangePath): void {
    this.rules.enforce({
      branch,
      commits: before === undefined ? this.commitsOnlyOn(branch, after) : this.commitsBetween(before, after),
      fastForward: before === undefined || this.graph.isAncestor(before, after),
      path,
    });
  }

  private addCommit(parent: string, files: FileChanges, message: string, author: string): Commit {
    const tree = applyChanges(this.graph.get(parent).tree, files);
    return this.graph.add({ parents: [parent], tree, message, author, date: this.world.now() });
  }

  /**
   * Every ref change goes through here, as on GitHub: a `push` webhook, then what it does to pull requests.
   * Returns the `pull_request` webhooks it caused. Setting a branch to where it is changes nothing.
   */
  private moveBranch(branch: string, after: string | undefined, pusher: string): PullRequestDelivery[] {
    const before = this.refs.get(branch);
    if (before === after) return [];
    if (after === undefined) this.refs.delete(branch);
    else this.refs.set(branch, after);
    this.world.emit("push", pushPayload(this, { branch, before, after, pusher }));
    return this.pulls.afterBranchMoved(branch, after, pusher);
  }

  private checkRunEvent(run: CheckRunRecord, action: "created" | "completed", sender: string): CheckDelivery {
    return this.world.emit("check_run", checkRunPayload(this, run, action, sender));
  }

  private requireCommit(ref: string, kind: "branch" | "commit" = "commit"): Commit {
    const commit = kind === "branch" ? this.graph.find(this.refs.get(ref) ?? "") : this.resolve(ref);
    if (!commit)
      throw new Error(`no ${kind === "branch" ? "branch" : "branch or commit"} ${ref} in ${this.fullName}`);
    return commit;
  }
}
