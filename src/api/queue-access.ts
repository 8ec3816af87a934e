// The queue a request names: its repository (checked by repo-access) and its target branch.
import { findQueueVersion, type VersionedQueueRef } from "../store/queue-versions.ts";
import type { Repository } from "../store/repositories.ts";
import type { Principal } from "../store/tokens.ts";
import type { QueueState } from "../queue/index.ts";
import type { ApiDependencies } from "../http/dependencies.ts";
import { notFound } from "../http/problem.ts";
import { queueReadCache } from "./queue-read-cache.ts";
import { resolveRepository } from "./repo-access.ts";
import type { RepoRef } from "./schemas.ts";

export interface QueueAccess {
  repository: Repository;
  queue: VersionedQueueRef;
  /** Shared with other requests (src/api/queue-read-cache.ts): never to be mutated. */
  state: QueueState;
}

export function queueNotFound(repository: Repository, branch: string) {
  return notFound(
    "queue_not_found",
    `no merge queue for branch ${branch} in ${repository.host}/${repository.owner}/${repository.name}`,
  );
}

export async function resolveQueue(
  deps: ApiDependencies,
  principal: Principal,
  target: { repo: RepoRef; targetBranch: string },
): Promise<QueueAccess> {
  const repository = await resolveRepository(deps, principal, target.repo);
  const queue = await findQueueVersion(deps.store.db, repository.id, target.targetBranch);
  const state =
    queue === undefined
      ? undefined
      : await queueReadCache(deps.store).state(queue.id, queue.version, () =>
          deps.store.loadQueueState(queue.id),
        );
  if (queue === undefined || state === undefined) throw queueNotFound(repository, target.targetBranch);
  return { repository, queue, state };
}
