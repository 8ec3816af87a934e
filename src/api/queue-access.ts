// The queue a request names: its repository (checked by repo-access) and its target branch.
import type { QueueRef, QueueSnapshot, VersionedQueueRef } from "../ports/queue-records.ts";
import type { Repository } from "../ports/test-case-storage.ts";
import type { Principal } from "../ports/api-tokens.ts";
import type { QueueState } from "../queue/index.ts";
import type { EdgeDependencies } from "../http/dependencies.ts";
import { notFound } from "../http/problem.ts";
import { coveredRepository, knownRepository } from "./repo-access.ts";
import type { RepoRef } from "./schemas.ts";

/** A queue a request may read, and the version of its state saved last (read with it, in one query). */
export interface QueueVersionAccess {
  repository: Repository;
  queue: QueueRef;
  version: number;
}

export interface QueueAccess extends QueueVersionAccess {
  /** The queue's state as last saved, shared with other requests (./queue-read-cache.ts): never to be mutated. */
  state: QueueState;
}

export function queueNotFound(repository: Repository, branch: string) {
  return notFound(
    "queue_not_found",
    `no merge queue for branch ${branch} in ${repository.host}/${repository.owner}/${repository.name}`,
  );
}

/**
 * How a request learns the repository when the fast path (an installed repository with the queue, in one query)
 * finds nothing: from the database alone (knownRepository, the default: reads never wait for GitHub), or asking
 * GitHub on a miss (resolveRepository: for a command that acts on GitHub anyway, such as a submission).
 */
export type RepositoryLookUp = typeof knownRepository;

/** The queue a request names, without its state: what a read answered from the cache needs. */
export async function resolveQueueVersion(
  deps: EdgeDependencies,
  principal: Principal,
  target: { repo: RepoRef; targetBranch: string },
  lookUp: RepositoryLookUp = knownRepository,
): Promise<QueueVersionAccess> {
  const { repository, queue: found } = await findRepositoryQueue(deps, principal, target, lookUp);
  if (found === undefined) throw queueNotFound(repository, target.targetBranch);
  const { version, ...queue } = found;
  return { repository, queue, version };
}

/** The queue a request names, with its state as saved at the version read, or later. */
export async function resolveQueue(
  deps: EdgeDependencies,
  principal: Principal,
  target: { repo: RepoRef; targetBranch: string },
  lookUp: RepositoryLookUp = knownRepository,
): Promise<QueueAccess> {
  const access = await resolveQueueVersion(deps, principal, target, lookUp);
  return { ...access, ...(await snapshotOf(deps, access)) };
}

/** The state of the queue `access` names, as saved at its version or later. */
export async function snapshotOf(deps: EdgeDependencies, access: QueueVersionAccess): Promise<QueueSnapshot> {
  const snapshot = await deps.queueRecords.queueSnapshot(access.queue.id, access.version);
  if (snapshot === undefined) throw queueNotFound(access.repository, access.queue.branch);
  return snapshot;
}

/** In one query when the repository is known to be installed and has the queue, as it mostly is. */
async function findRepositoryQueue(
  deps: EdgeDependencies,
  principal: Principal,
  target: { repo: RepoRef; targetBranch: string },
  lookUp: RepositoryLookUp,
): Promise<{ repository: Repository; queue: VersionedQueueRef | undefined }> {
  const covered = coveredRepository(deps, principal, target.repo);
  const known = await deps.queueRecords.findInstalledRepositoryQueue(covered, target.targetBranch);
  if (known !== undefined) return known;
  const repository = await lookUp(deps, principal, target.repo);
  return { repository, queue: await deps.queueRecords.findQueueVersion(repository.id, target.targetBranch) };
}
