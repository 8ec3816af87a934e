// The branch rules of the targets, kept with the installation's other facts about GitHub: read once, then again
// when GitHub says they changed (`branch_protection_rule`, `repository_ruleset` webhooks), when GitHub refused
// something for a rule, or when the read is older than MAX_AGE_MS (a missed webhook costs minutes, not days).
import type { BranchRule } from "../queue/index.ts";
import type { Clock } from "../ports/clock.ts";

export const MAX_AGE_MS = 10 * 60 * 1000;

export interface RepositoryKey {
  readonly owner: string;
  readonly name: string;
}

interface Entry {
  readonly rules: Promise<readonly BranchRule[]>;
  readonly readAt: number;
}

const repositoryKey = (repo: RepositoryKey) => `${repo.owner}/${repo.name}`.toLowerCase();

export class BranchRulesCache {
  /** By repository, then branch: a webhook about a repository's rules forgets all its branches. */
  private readonly entries = new Map<string, Map<string, Entry>>();

  constructor(private readonly clock: Clock = Date.now) {}

  /**
   * The branch's rules, read through `read` unless a read younger than MAX_AGE_MS is known; `fresh` when this call
   * read them (the caller then tells the queue). Concurrent callers share one read; a failed read is forgotten.
   */
  async get(
    repo: RepositoryKey,
    branch: string,
    read: () => Promise<readonly BranchRule[]>,
  ): Promise<{ rules: readonly BranchRule[]; fresh: boolean }> {
    const branches = this.entries.get(repositoryKey(repo)) ?? new Map<string, Entry>();
    this.entries.set(repositoryKey(repo), branches);
    const known = branches.get(branch);
    if (known !== undefined && this.clock() - known.readAt < MAX_AGE_MS) {
      return { rules: await known.rules, fresh: false };
    }
    const entry = { rules: read(), readAt: this.clock() };
    branches.set(branch, entry);
    try {
      return { rules: await entry.rules, fresh: true };
    } catch (error) {
      if (branches.get(branch) === entry) branches.delete(branch);
      throw error;
    }
  }

  /** What GitHub last said, without asking it; undefined when never read (or forgotten). */
  async peek(repo: RepositoryKey, branch: string): Promise<readonly BranchRule[] | undefined> {
    return this.entries
      .get(repositoryKey(repo))
      ?.get(branch)
      ?.rules.catch(() => undefined);
  }

  forgetRepository(repo: RepositoryKey): void {
    this.entries.delete(repositoryKey(repo));
  }
}
