// Extension (GitHub's branch rules): the rules GitHub enforces on the target branch, as the shell last read
// them (rulesets and legacy branch protection), how the queue honours each under its settings, and what a
// refusal for one of them does: the PRs it refused fail with GitHub's own words, and the queue pauses when no
// merge could get through, rather than testing and retesting what can never land.
import { removeFromQueue } from "./abandonment.ts";
import type { QueueDraft } from "./draft.ts";
import type { MergeFailure } from "./events.ts";
import type { MergeMethod, QueueSettings } from "./settings.ts";
import type { BranchRule } from "./branch-rule-facts.ts";
import type { MergeInFlight } from "./state.ts";
import { rebuildAllRuns } from "./target-branch.ts";

/** A rule and what the queue does about it; `blocksLanding`: no PR could land under it with these settings. */
export interface HonouredRule extends BranchRule {
  readonly honoured: string;
  readonly blocksLanding: boolean;
}

const landsThroughPullRequests = (method: MergeMethod) => method !== "merge_commit";

function honouring(type: string, method: MergeMethod): Omit<HonouredRule, keyof BranchRule> {
  const via = landsThroughPullRequests(method);
  switch (type) {
    case "required_signatures":
      return {
        blocksLanding: false,
        honoured: via
          ? "PRs land through GitHub's pull request merge, which GitHub signs; test branches are built from commits GitHub signs."
          : "Test branches are built from the merge commits GitHub makes and signs, and the branch fast-forwards to them. A PR whose own commits are unsigned is refused by GitHub and fails.",
      };
    case "required_linear_history":
      return via
        ? { blocksLanding: false, honoured: `${method} puts no merge commit on the branch.` }
        : {
            blocksLanding: true,
            honoured:
              "merge_commit would put merge commits on the branch, which the rule forbids: use squash or rebase.",
          };
    case "lock_branch":
    case "update":
      return {
        blocksLanding: true,
        honoured: "The branch is read-only: nothing can land until it is unlocked.",
      };
    case "merge_queue":
      return {
        blocksLanding: true,
        honoured: "GitHub's own merge queue is required: changes can only land through it.",
      };
    case "pull_request":
      return via
        ? {
            blocksLanding: false,
            honoured:
              "PRs land through pull request merges; GitHub still asks for the reviews the rule requires.",
          }
        : {
            blocksLanding: true,
            honoured:
              "merge_commit moves the branch by a push, which the rule forbids (changes only through pull requests): use squash or rebase.",
          };
    case "non_fast_forward":
      return { blocksLanding: false, honoured: "The queue never force-pushes the branch." };
    case "required_status_checks":
      return { blocksLanding: false, honoured: "Test branches must pass the same checks before a PR lands." };
    case "required_deployments":
      return {
        blocksLanding: false,
        honoured:
          "GitHub refuses a merge until the deployments succeed: such a refusal fails the PR with GitHub's words.",
      };
    default:
      return {
        blocksLanding: false,
        honoured:
          "Not one the queue acts on: a merge GitHub refuses for it fails its PRs with GitHub's words.",
      };
  }
}

/** The rules, each with what the queue does about it under `settings`. */
export function honouredRules(rules: readonly BranchRule[], settings: QueueSettings): HonouredRule[] {
  return rules.map((rule) => ({ ...rule, ...honouring(rule.type, settings.mergeMethod) }));
}

/** The first rule under which no PR could land with `settings`: createQueue and updateQueue refuse them. */
export function ruleBlockingLanding(
  rules: readonly BranchRule[],
  settings: QueueSettings,
): HonouredRule | undefined {
  return honouredRules(rules, settings).find((rule) => rule.blocksLanding);
}

const sameRules = (a: readonly BranchRule[], b: readonly BranchRule[]) =>
  a.length === b.length &&
  a.every((rule, index) => rule.type === b[index]?.type && rule.source === b[index]?.source);

/** The shell read the target's rules: kept to be shown, and to judge refusals by. */
export function onBranchRulesRead(draft: QueueDraft, rules: readonly BranchRule[]): void {
  const known = draft.state.branchRules;
  if (known !== undefined && sameRules(known.rules, rules)) return;
  draft.update({
    branchRules: {
      readAt: draft.now,
      rules,
      refusals: known?.refusals ?? 0,
      lastRefusal: known?.lastRefusal ?? null,
    },
  });
}

/**
 * GitHub refused a merge for a rule (`rule`: its type, when the shell could tell it): the PRs that merge tried to
 * land fail quoting GitHub, and the queue pauses when the rule refuses every merge under its settings, until
 * someone changes the rule or the settings and resumes it. Nothing is retried: the same merge would meet the
 * same refusal. Unless the refused commit is the queue's own, made before it knew the rule (`retest`): then its
 * runs are built again, which the restart budget bounds (see restart-budget.ts).
 */
export function onRuleRefused(
  draft: QueueDraft,
  merge: MergeInFlight,
  { rule, message, retest }: Extract<MergeFailure, { kind: "rule_refused" }>,
): void {
  const known = draft.state.branchRules;
  draft.update({
    branchRules: {
      readAt: known?.readAt ?? draft.now,
      rules: known?.rules ?? [],
      refusals: (known?.refusals ?? 0) + 1,
      lastRefusal: { at: draft.now, rule, message },
    },
  });
  const named = rule === null ? "a branch rule" : `the branch rule ${rule}`;
  if (retest === true) {
    rebuildAllRuns(
      draft,
      `GitHub refused the tested commit for ${named} (${message}); it was built before the queue knew the rule: testing again on commits the rule accepts.`,
    );
    return;
  }
  for (const prNumber of merge.inFlight) {
    removeFromQueue(draft, prNumber, {
      to: "failed",
      reason: "branch_rule_refused",
      detail: `GitHub refused the merge for ${named}: ${message}`,
    });
  }
  const blocking = rule !== null && honouring(rule, draft.state.settings.mergeMethod).blocksLanding;
  if (blocking && draft.state.status !== "paused") draft.update({ status: "paused" });
}
