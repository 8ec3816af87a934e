// createQueue and updateQueue against the target's rules on GitHub: settings under which no PR could land are
// refused, naming the rule; a rule no setting gets around (a locked branch, GitHub's own merge queue) leaves the
// queue paused, for someone to resume once the rule is lifted. What was read is told to the queue, to show.
import type { RepoAddress } from "../ports/github-reads.ts";
import type { BranchRule, QueueEvent, QueueSettings, QueueStatus } from "../queue/index.ts";
import { ruleBlockingLanding } from "../queue/index.ts";
import type { ApiDependencies } from "../http/dependencies.ts";
import { conflict } from "../http/problem.ts";

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
  deps: Pick<ApiDependencies, "github">,
  repository: RepoAddress,
  branch: string,
  settings: QueueSettings,
  status: QueueStatus | undefined,
): Promise<RulesVerdict> {
  let rules: readonly BranchRule[];
  try {
    ({ rules } = await deps.github.branchRules(repository, branch));
  } catch {
    return { events: [], pauseFor: null };
  }
  const always = ruleBlockingLanding(rules, { ...settings, mergeMethod: "squash" });
  const blocking = always ?? ruleBlockingLanding(rules, settings);
  const named = (rule: BranchRule & { honoured: string }) =>
    `${branch} has the rule ${rule.type} on GitHub (${rule.source}): ${rule.honoured}`;
  if (blocking !== undefined && always === undefined) throw conflict("branch_rule_conflict", named(blocking));
  if (always !== undefined && status === "running") throw conflict("branch_rule_conflict", named(always));
  return { events: [{ type: "branch_rules_read", rules }], pauseFor: always ?? null };
}
