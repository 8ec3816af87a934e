// The repositories this service knows: those the GitHub App is installed on (from installation webhooks and the
// API's look-ups on GitHub), and those test health was told of. src/store/repositories.ts implements it.
import type { RepositoryRef } from "./github-reads.ts";
import type { Repository } from "./test-case-storage.ts";

export interface RepositoryRecords {
  findRepository(ref: RepositoryRef): Promise<Repository | undefined>;
  /** The repository with its installation and when that was learnt. */
  findRepositoryInstallation(
    ref: RepositoryRef,
  ): Promise<(Repository & { installationLearnedAt: number }) | undefined>;
  /** The app is no longer installed on the repository. */
  forgetRepositoryInstallation(repository: Repository, now: number): Promise<void>;
  /** Records a repository test health was told of (no installation needed). */
  recordRepository(ref: RepositoryRef, now: number): Promise<Repository>;
  /** Records the installation serving the repository. */
  rememberRepository(ref: RepositoryRef & { installationId: number }, now: number): Promise<Repository>;
  /** The installation is gone, from `refs` only or (undefined) from every repository. */
  forgetInstallation(installationId: number, refs: RepositoryRef[] | undefined, now: number): Promise<void>;
}
