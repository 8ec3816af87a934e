// A queue created before its branch learns the branch's head from its push webhook; should that webhook be lost,
// the first submission (whose PR targets the branch, so it exists by then) reads the head instead.
import type { QueueEvent, QueueState } from "../queue/index.ts";

/** The event that tells a queue waiting for its branch where the branch is now; none when it does not wait. */
export async function awaitedBranchEvents(
  state: QueueState,
  readHead: () => Promise<string | null>,
): Promise<QueueEvent[]> {
  if (state.target.awaitingBranch !== true) return [];
  const head = await readHead();
  return head === null ? [] : [{ type: "target_branch_moved", sha: head }];
}
