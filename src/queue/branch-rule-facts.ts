// What the queue knows of its target's rules on GitHub (see branch-rules.ts, which acts on them).

/** One rule GitHub enforces on the target branch. */
export interface BranchRule {
  /**
   * GitHub's name for it: a ruleset rule type (`required_signatures`, `update`, `merge_queue`…), or the legacy
   * protection setting (`required_signatures`, `required_linear_history`, `lock_branch`).
   */
  readonly type: string;
  /** Where it is set: `ruleset <id>` or `branch protection`. */
  readonly source: string;
}

/** What the queue last read of its target's rules, and the refusals GitHub gave it for them. */
export interface BranchRulesState {
  /** Epoch ms of the read; rules are re-read on GitHub's rule webhooks and after every refusal. */
  readonly readAt: number;
  readonly rules: readonly BranchRule[];
  /** Merges GitHub refused for a rule so far. */
  readonly refusals: number;
  readonly lastRefusal: {
    readonly at: number;
    readonly rule: string | null;
    readonly message: string;
  } | null;
}
