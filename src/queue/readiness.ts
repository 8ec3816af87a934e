import type { ProviderMergeability, PullRequestEntry, QueueState } from "./state.ts";

/** The readiness facts of a PR (docs/queue.md#readiness). */
export interface Readiness {
  readonly doesBaseBranchMatch: boolean;
  readonly providerMergeability: ProviderMergeability;
  readonly requiresImpactedTargets: boolean;
  readonly hasImpactedTargets: boolean;
}

export function readinessOf(state: QueueState, pr: PullRequestEntry): Readiness {
  return {
    // GitHub branch names compare case-insensitively (docs/queue.md#readiness).
    doesBaseBranchMatch: pr.baseBranch.toLowerCase() === state.targetBranch.toLowerCase(),
    providerMergeability: pr.mergeability,
    requiresImpactedTargets: state.settings.mode === "parallel",
    hasImpactedTargets: pr.impactedTargets !== null && pr.impactedTargets.headSha === pr.headSha,
  };
}

export function isReady(readiness: Readiness): boolean {
  return (
    readiness.doesBaseBranchMatch &&
    readiness.providerMergeability === "mergeable" &&
    (!readiness.requiresImpactedTargets || readiness.hasImpactedTargets)
  );
}

/** One sentence naming what a not-ready PR still lacks. */
export function readinessDetail(state: QueueState, readiness: Readiness): string {
  const missing: string[] = [];
  if (!readiness.doesBaseBranchMatch) missing.push(`its base branch is not ${state.targetBranch}`);
  if (readiness.providerMergeability === "not_mergeable") missing.push("GitHub reports it cannot be merged");
  else if (readiness.providerMergeability !== "mergeable")
    missing.push("GitHub is still computing its mergeability");
  if (readiness.requiresImpactedTargets && !readiness.hasImpactedTargets) {
    missing.push("no impacted targets were set for its head commit");
  }
  return missing.length === 0 ? "Ready to be tested." : `Waiting: ${missing.join("; ")}.`;
}
