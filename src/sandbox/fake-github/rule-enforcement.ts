// Branch rules of the fake GitHub that refuse a change for what it is rather than for when it comes: required
// signatures, linear history, a locked branch, pushes only through pull requests or GitHub's own merge queue.
// They come from rulesets (`GET /rules/branches/{branch}` lists them) or from legacy branch protection, and
// GitHub refuses with the rule's own sentence: a ruleset as "Repository rule violations found", legacy
// protection as "Protected branch update failed". Commits GitHub makes (its merges, squashes and rebases, and
// commits the app makes without naming an author or committer) are signed and verified; a commit the app makes
// as someone else is not, nor a commit a person pushes unsigned.
import type { Commit } from "./git.ts";
import { accountJson, installationJson, repositoryJson } from "./representations.ts";
import type { FakeRepository } from "./fake-repository.ts";
import type { BranchProtection } from "./repository-settings.ts";
import { GitHubApiError } from "./world.ts";

/** The ruleset rule types the fake enforces; others (e.g. required_deployments) are listed, not enforced. */
export type EnforcedRuleType =
  | "required_signatures"
  | "required_linear_history"
  | "update"
  | "non_fast_forward"
  | "pull_request"
  | "merge_queue";

export interface RulesetRule {
  readonly type: EnforcedRuleType | (string & {});
  readonly parameters?: Readonly<Record<string, unknown>>;
}

export interface RuleSet {
  readonly id: number;
  readonly name: string;
  /** fnmatch patterns of the branch names it applies to (`*` within a segment, `**` across), or `~ALL`. */
  readonly branches: readonly string[];
  readonly rules: readonly RulesetRule[];
}

/** How a change reaches the branch: a ref write, `POST /merges`, or `PUT /pulls/{n}/merge`. */
export type ChangePath = "push" | "merges_api" | "pull_request_merge";

/** The refusal's status by path: as GitHub answers a ref write, a merge, and a PR merge. */
const refusalStatus: Record<ChangePath, number> = { push: 422, merges_api: 409, pull_request_merge: 405 };

const sentences: Record<EnforcedRuleType, string> = {
  required_signatures: "Commits must have verified signatures.",
  required_linear_history: "This branch must not contain merge commits.",
  update: "Cannot update this protected ref.",
  non_fast_forward: "Cannot force-push to this branch.",
  pull_request: "Changes must be made through a pull request.",
  merge_queue: "Changes must be made through the merge queue.",
};

function globToRegExp(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  const source = escaped.replace(/\*\*|\*|\?/g, (token) =>
    token === "**" ? ".*" : token === "*" ? "[^/]*" : "[^/]",
  );
  return new RegExp(`^${source}$`);
}

function appliesTo(ruleset: RuleSet, branch: string): boolean {
  return ruleset.branches.some((pattern) => pattern === "~ALL" || globToRegExp(pattern).test(branch));
}

export interface ProposedChange {
  readonly branch: string;
  /** Commits the change brings to the branch, oldest first. */
  readonly commits: readonly Commit[];
  readonly fastForward: boolean;
  readonly path: ChangePath;
}

export class BranchRuleModel {
  private readonly rulesets: RuleSet[] = [];
  private readonly unsigned = new Set<string>();

  constructor(
    private readonly repo: FakeRepository,
    private readonly protectionOf: (branch: string) => BranchProtection | undefined,
  ) {}

  /** A commit made by the app in someone else's name, or pushed unsigned: GitHub shows it unverified. */
  markUnsigned(sha: string): void {
    this.unsigned.add(sha);
  }

  isVerified(sha: string): boolean {
    return !this.unsigned.has(sha);
  }

  /** An active ruleset; GitHub sends `repository_ruleset` `created`. */
  addRuleset(ruleset: Omit<RuleSet, "id">): RuleSet {
    const created = { ...ruleset, id: this.repo.world.nextId() };
    this.rulesets.push(created);
    this.repo.world.emit("repository_ruleset", {
      action: "created",
      repository_ruleset: { id: created.id, name: created.name, target: "branch", enforcement: "active" },
      ...this.envelope(),
    });
    return created;
  }

  /** Sends `branch_protection_rule` `edited`, as GitHub does when a protection changes. */
  protectionChanged(branch: string): void {
    this.repo.world.emit("branch_protection_rule", {
      action: "edited",
      rule: { id: this.repo.world.idFor(`protection:${branch}`), name: branch },
      ...this.envelope(),
    });
  }

  /** The active ruleset rules of `branch`, as `GET /rules/branches/{branch}` lists them. */
  rulesetRulesOf(branch: string) {
    return this.rulesets
      .filter((ruleset) => appliesTo(ruleset, branch))
      .flatMap((ruleset) =>
        ruleset.rules.map((rule) => ({
          type: rule.type,
          ...(rule.parameters && { parameters: rule.parameters }),
          ruleset_source_type: "Repository",
          ruleset_source: this.repo.fullName,
          ruleset_id: ruleset.id,
        })),
      );
  }

  /** Throws GitHub's refusal when a rule forbids the change; the first broken rule is named. */
  enforce(change: ProposedChange): void {
    const broken = this.brokenRulesetRule(change);
    if (broken !== undefined) {
      throw new GitHubApiError(
        refusalStatus[change.path],
        `Repository rule violations found\n\n${sentences[broken]}\n\n`,
      );
    }
    const legacy = this.brokenLegacyRule(change);
    if (legacy !== undefined) {
      throw new GitHubApiError(
        refusalStatus[change.path],
        `Protected branch update failed for refs/heads/${change.branch}.\n\n${legacy}`,
      );
    }
  }

  private brokenRulesetRule(change: ProposedChange): EnforcedRuleType | undefined {
    const types = new Set(
      this.rulesets
        .filter((ruleset) => appliesTo(ruleset, change.branch))
        .flatMap((ruleset) => ruleset.rules),
    );
    const has = (type: EnforcedRuleType) => [...types].some((rule) => rule.type === type);
    const order: EnforcedRuleType[] = [
      "update",
      "merge_queue",
      "pull_request",
      "non_fast_forward",
      "required_linear_history",
      "required_signatures",
    ];
    return order.find((type) => has(type) && this.breaks(type, change));
  }

  private brokenLegacyRule(change: ProposedChange): string | undefined {
    const protection = this.protectionOf(change.branch);
    if (protection === undefined) return undefined;
    if (protection.lockBranch) return "Cannot change this locked branch";
    if (protection.requiredLinearHistory && this.breaks("required_linear_history", change))
      return sentences.required_linear_history;
    if (protection.requiredSignatures && this.breaks("required_signatures", change))
      return sentences.required_signatures;
    return undefined;
  }

  private breaks(type: EnforcedRuleType, change: ProposedChange): boolean {
    switch (type) {
      case "update":
        return true;
      case "merge_queue":
        return true;
      case "pull_request":
        return change.path !== "pull_request_merge";
      case "non_fast_forward":
        return !change.fastForward;
      case "required_linear_history":
        return change.commits.some((commit) => commit.parents.length > 1);
      case "required_signatures":
        return change.commits.some((commit) => !this.isVerified(commit.sha));
    }
  }

  private envelope() {
    const installation = installationJson(this.repo);
    return {
      repository: repositoryJson(this.repo),
      sender: accountJson(this.repo.world, this.repo.owner),
      ...(installation && { installation }),
    };
  }
}
