// Which repository a request is about, and whether the token may touch it (contract 3 and 4).
import type { FastifyRequest } from "fastify";
import {
  findRepository,
  recordRepository,
  rememberRepository,
  type Repository,
} from "../store/repositories.ts";
import type { Principal } from "../store/tokens.ts";
import { organizationCovers } from "../http/organization-access.ts";
import { principalOf } from "./auth.ts";
import type { ApiDependencies } from "../http/dependencies.ts";
import { Problem } from "../http/problem.ts";
import type { RepoRef } from "./schemas.ts";

/**
 * Checks the host, then the token's organization (403 whether or not the repo exists, so a token cannot
 * probe other organizations), then that the GitHub App is installed on the repo, asking GitHub the first
 * time and remembering the answer.
 */
export async function resolveRepository(
  deps: ApiDependencies,
  principal: Principal,
  ref: RepoRef,
): Promise<Repository> {
  const covered = coveredRepository(deps, principal, ref);
  const known = await findRepository(deps.store.db, covered);
  if (known !== undefined && known.installationId !== null) return known;

  const installed = await deps.installations.findInstallation(covered);
  if (installed === null) {
    throw new Problem(
      404,
      "repo_not_installed",
      `the Switchyard GitHub App is not installed on ${covered.host}/${ref.owner}/${ref.name}: install it on the repository first`,
    );
  }
  return rememberRepository(deps.store.db, installed, deps.clock());
}

/** contract 3: the repository `ref`, on this service's GitHub host and covered by the token's organization. */
export function coveredRepository(deps: ApiDependencies, principal: Principal, ref: RepoRef): RepoRef {
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
 * contract 3: a test-health request's org_url_slug must be the token's organization, and the repo one it covers.
 * Test health needs no GitHub App and never asks GitHub: the repository is the one the request names. Only an
 * upload or a repository setting records it (`record`); any other request about a repository never named before
 * finds nothing in it (an unrecorded repository, whose id no row holds), so a refused request writes nothing.
 */
export async function testHealthRepository(
  deps: ApiDependencies,
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
  if (options.record) return recordRepository(deps.store.db, ref, deps.clock());
  return (await findRepository(deps.store.db, ref)) ?? { id: "", ...ref, installationId: null };
}
