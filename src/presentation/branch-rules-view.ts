// The target's rules as getQueue and the queue page show them: each with how the queue honours it, and the
// refusals GitHub gave for them.
import { honouredRules, type HonouredRule, type QueueState } from "../queue/index.ts";

export interface BranchRulesView {
  readonly readAt: string;
  readonly rules: readonly HonouredRule[];
  readonly refusals: number;
  readonly lastRefusal: {
    readonly at: string;
    readonly rule: string | null;
    readonly message: string;
  } | null;
}

/** Null until the rules were first read (the first test branch, createQueue or updateQueue reads them). */
export function branchRulesView(state: QueueState): BranchRulesView | null {
  const known = state.branchRules;
  if (known === undefined) return null;
  const { lastRefusal } = known;
  return {
    readAt: new Date(known.readAt).toISOString(),
    rules: honouredRules(known.rules, state.settings),
    refusals: known.refusals,
    lastRefusal: lastRefusal === null ? null : { ...lastRefusal, at: new Date(lastRefusal.at).toISOString() },
  };
}
