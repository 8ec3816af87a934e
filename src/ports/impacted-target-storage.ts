// Where the targets uploaded for a PR's head (setImpactedTargets) are kept until the PR is submitted: a
// submission of that head takes them with it. src/store/impacted-targets.ts implements it.

export type Targets = readonly string[] | "ALL";

export interface ImpactedTargetEntry {
  queueId: string;
  prNumber: number;
  headSha: string;
  targets: Targets;
}

export interface ImpactedTargetStorage {
  saveImpactedTargets(entry: ImpactedTargetEntry, now: number): Promise<void>;
  /** The targets uploaded for this head of the PR, if any. */
  findImpactedTargets(queueId: string, prNumber: number, headSha: string): Promise<Targets | undefined>;
}
