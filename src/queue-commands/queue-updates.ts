// A queue's settings and state (running, paused, draining) against the target's rules on GitHub: what the /v1
// createQueue and updateQueue endpoints and the queue page's pause, resume and drain buttons ask. Settings under
// which no PR could land are refused, naming the rule; a rule no setting gets around (a locked branch, GitHub's
// own merge queue) leaves the queue paused, for someone to resume once the rule is lifted. What was read is told
// to the queue, to show.
import {
  type BranchRule,
  type QueueEvent,
  type QueueSettings,
  type QueueState,
  type QueueStatus,
  ruleBlockingLanding,
} from "../queue/index.ts";
import type { GitHubReader, RepoAddress } from "../ports/github-reads.ts";
import { type CommandAnswer, refusing, stepping } from "./answers.ts";

export interface BranchRuleConflict {
  readonly code: "branch_rule_conflict";
  /** The rule, where it comes from and what it asks, in words. */
  readonly detail: string;
}

export interface RulesVerdict {
  /** The events that tell the queue what was read (none when GitHub could not be asked). */
  readonly events: QueueEvent[];
  /** A rule no merge method gets around: the queue should be paused. */
  readonly pauseFor: BranchRule | null;
}

/**
 * Reads the branch's rules (from the cache when read lately) and judges `settings` by them. When they cannot be
 * read (GitHub unavailable, the app not installed yet, a permission missing) there is no verdict: the queue
 * meets the rules at work. `status`: the state the request asks for.
 */
export async function judgeSettingsByRules(
  github: Pick<GitHubReader, "branchRules">,
  repository: RepoAddress,
  branch: string,
  settings: QueueSettings,
  status: QueueStatus | undefined,
): Promise<RulesVerdict | BranchRuleConflict> {
  let rules: readonly BranchRule[];
  try {
    ({ rules } = await github.branchRules(repository, branch));
  } catch {
    return { events: [], pauseFor: null };
  }
  const always = ruleBlockingLanding(rules, { ...settings, mergeMethod: "squash" });
  const blocking = always ?? ruleBlockingLanding(rules, settings);
  const named = (rule: BranchRule & { honoured: string }): BranchRuleConflict => ({
    code: "branch_rule_conflict",
    detail: `${branch} has the rule ${rule.type} on GitHub (${rule.source}): ${rule.honoured}`,
  });
  if (blocking !== undefined && always === undefined) return named(blocking);
  if (always !== undefined && status === "running") return named(always);
  return { events: [{ type: "branch_rules_read", rules }], pauseFor: always ?? null };
}

export interface QueueChange {
  /** The queue, where it lives, and its state as last saved. */
  readonly queue: { readonly repo: RepoAddress; readonly state: QueueState };
  /** The settings to change (requiredStatuses null: back to the branch protection's). */
  readonly settings: Partial<QueueSettings>;
  /** The state asked for; absent: unchanged. */
  readonly status?: QueueStatus | undefined;
}

/** Changes a queue's settings or state: pause, resume, drain, or any of its settings. */
export async function changeQueue(
  github: Pick<GitHubReader, "branchRules">,
  change: QueueChange,
): Promise<CommandAnswer<BranchRuleConflict>> {
  const { queue, settings, status } = change;
  const wanted = { ...queue.state.settings, ...settings };
  const verdict = await judgeSettingsByRules(github, queue.repo, queue.state.targetBranch, wanted, status);
  if ("code" in verdict) return refusing(verdict);
  return stepping(...verdict.events, {
    type: "queue_updated",
    settings,
    ...(status === undefined ? {} : { status }),
  });
}
