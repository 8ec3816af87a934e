// The addresses of the queue pages: /queues/<host>/<owner>/<name> lists a repository's queues and
// /queues/<host>/<owner>/<name>/<branch> shows one, the branch as it is (slashes and all) or encoded as one segment.
// Links between pages are relative to the service's root, so they hold wherever a proxy mounts the service.
import type { RepositoryRef } from "../../ports/github-reads.ts";
import { queuePagesPath } from "../../urls.ts";
import { BranchName } from "../../http/branch-name.ts";
import { repositoryRefOf } from "../page-addresses.ts";
import type { SignInTarget } from "../test-page-html.ts";

export const queuePagesPrefix = "/queues";

/** The branch names the API takes for a queue. */
const branchPattern = new RegExp(BranchName.pattern as string);

export interface QueueAddress {
  repository: RepositoryRef;
  /** Null for the repository's list of queues. */
  branch: string | null;
}

/** The queue (or repository) the address `<host>/<owner>/<name>[/<branch>]` names, or null when it names none. */
export function queueAddressOf(address: string): QueueAddress | null {
  const [host = "", owner = "", name = "", ...rest] = address.split("/");
  const repository = repositoryRefOf(host, owner, name);
  if (repository === null) return null;
  if (rest.length === 0) return { repository, branch: null };
  const branch = rest.join("/");
  return branch.length <= (BranchName.maxLength as number) && branchPattern.test(branch)
    ? { repository, branch }
    : null;
}

/** The path of a queue address below the service's root: /queues/<host>/<owner>/<name>[/<branch>]. */
export const queuePath = (address: QueueAddress): string =>
  queuePagesPath(address.repository, address.branch);

/** The path of the page a sign-in form's `queue` field names, or null when it names none. */
export function queuePagePath(field: string): string | null {
  const address = queueAddressOf(field);
  return address === null ? null : queuePath(address);
}

/** The text that leads from the page at `path` (as the browser asked for it) up to the service's root. */
export function toRootFrom(path: string): string {
  const segments =
    path
      .split("?")[0]
      ?.split("/")
      .filter((segment) => segment !== "") ?? [];
  return "../".repeat(Math.max(segments.length - 1, 0));
}

/** The sign-in form of a queue page; `root` leads from the page up to the service's root. */
export function queueSignIn(field: string, root: string): SignInTarget {
  const address = queueAddressOf(field);
  const what = address === null ? field : `${address.repository.owner}/${address.repository.name}`;
  return {
    action: `${root}tests/sign-in`,
    fields: { queue: field },
    subject:
      address?.branch == null ? `the merge queues of ${what}` : `the ${address.branch} queue of ${what}`,
  };
}
