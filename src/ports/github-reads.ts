// What the use cases, the API and the pages read from GitHub, and how they learn which installation of the
// GitHub App serves a repository. src/github/ implements these; failures are those of github-failures.ts.
import type { BranchRule, PullRequestFacts, StatusReport } from "../queue/index.ts";

/** A repository as a request or webhook names it (names compare case-insensitively). */
export interface RepositoryRef {
  host: string;
  owner: string;
  name: string;
}

export interface RepoAddress {
  owner: string;
  name: string;
  installationId: number | null;
}

export interface OpenPullRequest extends PullRequestFacts {
  open: boolean;
  merged: boolean;
  draft: boolean;
}

/** Where the API learns whether (and through which installation) the GitHub App is on a repository. */
export interface InstallationDirectory {
  /** Null when the app is not installed on the repository (or the repository does not exist). */
  findInstallation(ref: RepositoryRef): Promise<(RepositoryRef & { installationId: number }) | null>;
}

/** What the API reads from GitHub through the repository's installation. */
export interface GitHubReader {
  pullRequest(repo: RepoAddress, number: number): Promise<OpenPullRequest | null>;
  branchHead(repo: RepoAddress, branch: string): Promise<string | null>;
  /** The rules GitHub enforces on the branch, from the cache when read lately; `fresh` when read now. */
  branchRules(repo: RepoAddress, branch: string): Promise<{ rules: readonly BranchRule[]; fresh: boolean }>;
  /** Everything CI reported on a commit: check runs and commit statuses. */
  ciReports(repo: RepoAddress, sha: string): Promise<StatusReport[]>;
}
