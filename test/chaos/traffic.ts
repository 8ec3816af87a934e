// The queue traffic of the fault-injection test: PRs opened across the repositories in turn, each with a
// change of its own (some break the build), each submitted by a `/merge` comment or through the /v1 API.
// People behave as people do: a `/merge` that got no reaction is commented again; an API call that failed
// is tried again.
import type { FakeGitHub } from "../../src/sandbox/fake-github/index.ts";
import { brokenContent } from "../../src/sandbox/ci-simulator.ts";
import type { ServiceApi } from "./service-api.ts";
import type { ChaosSettings } from "./settings.ts";

/** Who opens and submits every PR; anything else that writes to GitHub is the queue or CI at work. */
export const developer = "dev";

export interface SubmittedPullRequest {
  readonly repo: string;
  readonly number: number;
  readonly broken: boolean;
  readonly via: "comment" | "api";
  /** The delivery ids of its `/merge` comments. */
  readonly commentDeliveries: string[];
  lastCommentAt: number;
  /** The API answered 200 to the submission. */
  apiAcknowledged: boolean;
}

/** Whether the service took the PR's command: the API answered 200, or it answered a `/merge` delivery 2xx. */
export function acknowledged(pr: SubmittedPullRequest, acknowledgedDeliveries: ReadonlySet<string>): boolean {
  return pr.apiAcknowledged || pr.commentDeliveries.some((id) => acknowledgedDeliveries.has(id));
}

export class Traffic {
  readonly pullRequests: SubmittedPullRequest[] = [];
  repeatedComments = 0;
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly fake: FakeGitHub,
    private readonly api: ServiceApi,
    private readonly host: string,
    private readonly settings: ChaosSettings,
    private readonly random: () => number,
  ) {}

  /** Opens the next PR (repositories in turn) and submits it. */
  submitNext(): void {
    const { repositories, ci, commentShare, mergeabilityPendingReads } = this.settings;
    const repoName = repositories[this.pullRequests.length % repositories.length] as string;
    const repo = this.fake.repository(repoName);
    const broken = this.random() < ci.brokenShare;
    const via = this.random() < commentShare ? "comment" : "api";
    const opened = repo.openPullRequest({
      title: `Change ${this.pullRequests.length + 1}`,
      author: developer,
      files: { [`changes/${this.pullRequests.length + 1}.txt`]: broken ? brokenContent : "works\n" },
    });
    repo.setMergeabilityPending(opened.number, mergeabilityPendingReads);
    const pr: SubmittedPullRequest = {
      repo: repoName,
      number: opened.number,
      broken,
      via,
      commentDeliveries: [],
      lastCommentAt: 0,
      apiAcknowledged: false,
    };
    this.pullRequests.push(pr);
    if (via === "comment") this.comment(pr);
    else this.track(this.submitThroughApi(pr));
  }

  /** A `/merge` nobody reacted to within the settings' patience is commented again. */
  remindUnanswered(isFinal: (pr: SubmittedPullRequest) => boolean): void {
    const now = Date.now();
    for (const pr of this.pullRequests) {
      if (pr.via !== "comment" || now - pr.lastCommentAt < this.settings.commandPatienceMs || isFinal(pr)) {
        continue;
      }
      const repo = this.fake.repository(pr.repo);
      const answered = repo
        .comments(pr.number)
        .some((comment) => comment.author === developer && repo.reactions(comment.id).length > 0);
      if (answered) continue;
      this.repeatedComments += 1;
      this.comment(pr);
    }
  }

  /** API submissions still waiting for an answer finish. */
  async settle(): Promise<void> {
    await Promise.all(this.pending);
  }

  private comment(pr: SubmittedPullRequest): void {
    const delivery = this.fake.repository(pr.repo).comment(pr.number, developer, "Ready to go.\n/merge");
    pr.commentDeliveries.push(delivery.id);
    pr.lastCommentAt = Date.now();
  }

  private async submitThroughApi(pr: SubmittedPullRequest): Promise<void> {
    const [owner, name] = pr.repo.split("/");
    const answer = await this.api.post("submitPullRequest", {
      repo: { host: this.host, owner, name },
      targetBranch: "main",
      pr: { number: pr.number },
    });
    pr.apiAcknowledged = answer.status === 200;
  }

  private track(work: Promise<void>): void {
    const tracked = work.finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }
}
