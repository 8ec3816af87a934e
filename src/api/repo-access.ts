// Which repository a request is about, and whether the token may touch it (docs/api.md#tokens-and-organizations, #merge-queue-endpoints).
import type { FastifyRequest } from "fastify";
import type { Repository } from "../ports/test-case-storage.ts";
import { GitHubUnavailable } from "../ports/github-failures.ts";
import type { Principal } from "../ports/api-tokens.ts";
import { organizationCovers } from "../http/organization-access.ts";
import { principalOf } from "./auth.ts";
import type { EdgeDependencies } from "../http/dependencies.ts";
import { Problem } from "../http/problem.ts";
import type { RepoRef } from "./schemas.ts";

/**
 * For a command that must act on GitHub (createQueue, submitPullRequest): checks the host, then the token's
 * organization (403 whether or not the repo exists, so a token cannot probe other organizations), then that the
 * GitHub App is installed on the repo. The installation is known from installation webhooks and earlier look-ups;
 * GitHub is asked when none is known (a miss), or when the one known was learned longer ago than the cache's
 * expiry, in which case GitHub's failure leaves the known installation in use.
 */
export async function resolveRepository(
  deps: EdgeDependencies,
  principal: Principal,
  ref: RepoRef,
): Promise<Repository> {
  const covered = coveredRepository(deps, principal, ref);
  const found = await deps.repositories.findRepositoryInstallation(covered);
  if (found !== undefined && found.installationId !== null) {
    const { installationLearnedAt, ...known } = found;
    if (deps.clock() - installationLearnedAt < installationExpiryMs) return known;
    return refreshInstallation(deps, covered, known);
  }
  const installed = await deps.installations.findInstallation(covered);
  if (installed === null) throw repoNotInstalled(covered);
  return deps.repositories.rememberRepository(installed, deps.clock());
}

/** How long an installation learned from GitHub is used before a command asks GitHub again. */
export const installationExpiryMs = 60 * 60 * 1000;

async function refreshInstallation(
  deps: EdgeDependencies,
  ref: RepoRef,
  known: Repository,
): Promise<Repository> {
  let installed: Awaited<ReturnType<EdgeDependencies["installations"]["findInstallation"]>>;
  try {
    installed = await deps.installations.findInstallation(ref);
  } catch (error) {
    if (error instanceof GitHubUnavailable) return known;
    throw error;
  }
  if (installed === null) {
    await deps.repositories.forgetRepositoryInstallation(known, deps.clock());
    throw repoNotInstalled(ref);
  }
  return deps.repositories.rememberRepository(installed, deps.clock());
}

/**
 * For every other request (reads, and commands that only change the queue's own records): the repository as this
 * service's records hold it, never asking GitHub, so that a GitHub outage leaves the queue's records readable.
 * A repository the records do not hold comes back with an id no row holds: it has no queue (createQueue records
 * the repository), so what is asked of it is not found, as its answer says.
 */
export async function knownRepository(
  deps: EdgeDependencies,
  principal: Principal,
  ref: RepoRef,
): Promise<Repository> {
  const covered = coveredRepository(deps, principal, ref);
  return (await deps.repositories.findRepository(covered)) ?? unrecorded(covered);
}

/** A repository no row holds: nothing is found in it. */
function unrecorded(ref: RepoRef): Repository {
  return { id: "", ...ref, installationId: null };
}

function repoNotInstalled(ref: RepoRef): Problem {
  return new Problem(
    404,
    "repo_not_installed",
    `the Switchyard GitHub App is not installed on ${ref.host}/${ref.owner}/${ref.name}: install it on the repository first (createQueue checks with GitHub)`,
  );
}

/** The repository `ref` (docs/api.md#tokens-and-organizations), on this service's GitHub host and covered by the token's organization. */
export function coveredRepository(deps: EdgeDependencies, principal: Principal, ref: RepoRef): RepoRef {
  const host = ref.host.toLowerCase();
  if (host !== deps.config.githubHost) {
    throw new Problem(
      400,
      "unsupported_host",
      `this service works with repositories on ${deps.config.githubHost}, not ${ref.host}`,
    );
  }
  if (!organizationCovers(principal, host, ref.owner)) {
    throw new Problem(
      403,
      "forbidden",
      `the token's organization ${principal.organizationSlug} does not cover ${host}/${ref.owner}`,
    );
  }
  return { ...ref, host };
}

/**
 * docs/api.md#tokens-and-organizations: a test-health request's org_url_slug must be the token's organization, and the repo one it covers.
 * Test health needs no GitHub App and never asks GitHub: the repository is the one the request names. Only an
 * upload or a repository setting records it (`record`); any other request about a repository never named before
 * finds nothing in it (an unrecorded repository, whose id no row holds), so a refused request writes nothing.
 */
export async function testHealthRepository(
  deps: EdgeDependencies,
  request: FastifyRequest,
  body: { repo: RepoRef; org_url_slug: string },
  options: { record: boolean } = { record: false },
): Promise<Repository> {
  const principal = principalOf(request);
  if (body.org_url_slug.toLowerCase() !== principal.organizationSlug) {
    throw new Problem(
      403,
      "forbidden",
      `org_url_slug "${body.org_url_slug}" is not the organization of this token (${principal.organizationSlug})`,
    );
  }
  const ref = coveredRepository(deps, principal, body.repo);
  if (options.record) return deps.repositories.recordRepository(ref, deps.clock());
  return (await deps.repositories.findRepository(ref)) ?? unrecorded(ref);
}
