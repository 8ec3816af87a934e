// Telling a refusal for one of the target's rules from everything else GitHub refuses: it comes as 405 (a pull
// request merge), 409 (a merge or a ref write) or 422 (a ref write), in GitHub's words for the rule. Such a
// refusal states a fact about the change, not about the moment: asking again gets the same answer, so the
// executor reports it as `rule_refused` once the target head shows that it did not move meanwhile.
import { githubMessage } from "../ports/github-failures.ts";

export interface RuleRefusal {
  /** The rule's type, when GitHub's sentence names one the queue knows. */
  readonly rule: string | null;
  /** GitHub's message on one line, as the PRs' failure quotes it. */
  readonly message: string;
}

const refusalStatuses: ReadonlySet<number> = new Set([405, 409, 422]);

/** How GitHub introduces a rule refusal: rulesets, then legacy branch protection. */
const ruleRefusalIntro = /repository rule violations? found|protected branch update failed|protected ref/i;

/** GitHub's sentence for each rule, and the rule's type. */
const ruleSentences: readonly (readonly [RegExp, string])[] = [
  [/verified signatures/i, "required_signatures"],
  [/must not contain merge commits|merge commits are not allowed/i, "required_linear_history"],
  [/locked branch|branch is locked/i, "lock_branch"],
  [/cannot update this protected ref/i, "update"],
  [/through the merge queue/i, "merge_queue"],
  [/through a pull request/i, "pull_request"],
  [/deploy/i, "required_deployments"],
  [/required status checks? .*expected|status checks? .*expected/i, "required_status_checks"],
];

/** Force pushes are refused because the target is not an ancestor of the change: the target moved, no rule. */
const notAFastForward = /force-push|not a fast forward/i;

const oneLine = (message: string) =>
  message
    .split(/\n+/)
    .map((line) => line.trim())
    .filter(Boolean)
    .join(" — ");

/** The rule refusal `error` is, or null when it is something else (a conflict, a moved head, a permission). */
export function ruleRefusalOf(error: unknown): RuleRefusal | null {
  const status = (error as { status?: number }).status;
  if (status === undefined || !refusalStatuses.has(status)) return null;
  const message = githubMessage(error);
  if (notAFastForward.test(message)) return null;
  const named = ruleSentences.find(([sentence]) => sentence.test(message));
  if (named === undefined && !ruleRefusalIntro.test(message)) return null;
  return { rule: named?.[1] ?? null, message: oneLine(message) };
}
