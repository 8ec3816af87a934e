import type { Logger } from "probot";
import type { Config } from "../config.ts";
import type { OpenPullRequest, RepoAddress } from "../github/gateway.ts";
import type { RepositoryFacts } from "../health/repository-facts.ts";
import type { MergeQueueEngine } from "../runner/engine.ts";
import type { Store } from "../store/database.ts";
import type { RepositoryRef } from "../store/repositories.ts";

/** Where the API learns whether (and through which installation) the GitHub App is on a repository. */
export interface InstallationDirectory {
  /** Null when the app is not installed on the repository (or the repository does not exist). */
  findInstallation(ref: RepositoryRef): Promise<(RepositoryRef & { installationId: number }) | null>;
}

/** What the API reads from GitHub through the repository's installation. */
export interface GitHubReader {
  pullRequest(repo: RepoAddress, number: number): Promise<OpenPullRequest | null>;
  branchHead(repo: RepoAddress, branch: string): Promise<string | null>;
}

export interface ApiDependencies {
  config: Config;
  store: Store;
  installations: InstallationDirectory;
  github: GitHubReader;
  engine: MergeQueueEngine;
  /** Default branch and CODEOWNERS, for test health (contract 7.3, 7.5), as the uploads told them. */
  repositoryFacts: RepositoryFacts;
  log: Logger;
  clock: () => number;
}
