// The addresses of the pages under /tests: a test's is its id (docs/test-health.md#a-tests-page), a repository's is
// <host>/<owner>/<name>, as on GitHub, so a person can write it from the repository's own URL.
import type { RepositoryRef } from "../ports/github-reads.ts";

// GitHub's own limits on host names, logins and repository names; anything else names no repository.
const hostPattern = /^[a-z0-9.-]{1,253}(:[0-9]{1,5})?$/i;
const ownerPattern = /^[a-z0-9](?:[a-z0-9-]{0,38})$/i;
const namePattern = /^[a-z0-9._-]{1,100}$/i;

/** The repository a page address names, or null when it cannot name one. */
export function repositoryRefOf(host: string, owner: string, name: string): RepositoryRef | null {
  if (!hostPattern.test(host) || !ownerPattern.test(owner) || !namePattern.test(name)) return null;
  if (name === "." || name === "..") return null;
  return { host: host.toLowerCase(), owner, name };
}

/** The repository page's address relative to /tests/ ("./" keeps a host with a port from reading as a scheme). */
export function repositoryPagePath(repository: RepositoryRef): string {
  return `./${[repository.host, repository.owner, repository.name].map(encodeURIComponent).join("/")}`;
}

/** From a repository's page (three segments below /tests/) back to /tests/. */
export const fromRepositoryPage = "../../";
