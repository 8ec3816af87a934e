import { releaseStarted } from "./abandonment.ts";
import type { QueueDraft } from "./draft.ts";
import { activePrs } from "./ordering.ts";
import type { TargetBranchState } from "./state.ts";

/**
 * How many past heads are remembered. Push webhooks about the queue's own merges arrive late, repeated
 * and out of order, and must not read as pushes from outside; a few minutes of merges is plenty. A head
 * forgotten too early only costs a needless rebuild, never an untested merge.
 */
const REMEMBERED_HEADS = 50;

export function rememberHead(target: TargetBranchState, sha: string): readonly string[] {
  return [...target.recentHeads.filter((known) => known !== sha), sha].slice(-REMEMBERED_HEADS);
}

/** docs/queue.md#merging: every started PR, sidelined ones too, goes back to waiting, to be tested on the target as it now is. */
export function rebuildAllRuns(draft: QueueDraft, detail: string): void {
  for (const prNumber of [...activePrs(draft.state)].reverse()) {
    releaseStarted(draft, prNumber, { to: "waiting", reason: "target_moved", detail });
  }
}

/** Someone pushed to the target branch outside the queue: nothing tested so far is on it (docs/queue.md#merging). */
export function moveTargetOutside(draft: QueueDraft, sha: string): void {
  // The first push to a branch the queue waited for creates it.
  const { awaitingBranch: _created, ...target } = draft.state.target;
  draft.update({
    target: {
      ...target,
      headSha: sha,
      basisSha: sha,
      recentHeads: rememberHead(target, sha),
      headsSeenWhileMerging: [],
    },
  });
  rebuildAllRuns(
    draft,
    `${draft.state.targetBranch} moved to ${sha.slice(0, 7)} outside the queue; it will be tested again on top of it.`,
  );
}

/**
 * A push to the target branch. Heads the queue already knows (its own merges, repeated webhooks) change
 * nothing. While a merge is in flight an unknown head may be that merge, so it is decided with its result.
 */
export function onTargetMoved(draft: QueueDraft, sha: string): void {
  const target = draft.state.target;
  if (target.recentHeads.includes(sha)) return;
  if (draft.state.merging === null) {
    moveTargetOutside(draft, sha);
    return;
  }
  draft.update({
    target: {
      ...target,
      recentHeads: rememberHead(target, sha),
      headsSeenWhileMerging: [...target.headsSeenWhileMerging, sha],
    },
  });
}
