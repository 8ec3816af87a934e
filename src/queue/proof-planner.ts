// The proof planner (optimizationMode `separate_proof` and `auto`): proof separated from landing. Every run is
// the target, the PRs already proven good (they passed a run) and ONE group of unproven PRs, so a failure blames
// that group alone (or a flake) and never the runs beside it, which go on. A failed group is split and retested
// (proof-verdicts.ts). A passed run lands everything it holds when the target still is what it was built on (the
// Not Rocket Science rule); otherwise its PRs join the proven set and land with the next run that passes. Every
// run, the retests of suspects included, takes one of the `concurrency` slots, in one order: oldest PR first.
// A slot nothing else needs tests the proven PRs alone, so that they land. Fresh groups and the proven PRs
// waiting go at the end of one chain of runs that lands run after run, when it is likely enough to
// (docs/queue-policy.md#speculation-one-chain-that-lands).
import type { QueueDraft } from "./draft.ts";
import type { QueueRates } from "./failure-odds.ts";
import {
  RISKY,
  bestGroupSize,
  brokenPrsRare,
  evidenceOf,
  groupPassProbability,
  isProven,
  isSuspect,
  probabilityBroken,
  queueRates,
} from "./failure-odds.ts";
import { mergeNext, type MergePlan } from "./merging.ts";
import { testBudgetFreesAt } from "./restart-budget.ts";
import { compareQueueOrder } from "./ordering.ts";
import { putMembersBack } from "./proof-verdicts.ts";
import { endRun, inProgressRuns, retireRun } from "./run-lifecycle.ts";
import { canStartRuns, startRun } from "./runs.ts";
import type { PullRequestEntry, QueueState, TestRun } from "./state.ts";
import { isTerminal } from "./state.ts";
import { runContent, targetOfRun } from "./tested-content.ts";
import { usesProofPlanner } from "./settings.ts";
import { transition } from "./transitions.ts";

/** `auto` never tests more unproven PRs together than this. */
export const AUTO_MAX_GROUP = 16;

function entry(state: QueueState, prNumber: number): PullRequestEntry {
  return state.prs[prNumber] as PullRequestEntry;
}

/** The proven PRs, in the order they were proven: what every new run is built on. */
export function provenPrs(state: QueueState): number[] {
  return state.line.filter((prNumber) => isProven(entry(state, prNumber)));
}

function sameSet(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((member, index) => member === b[index]);
}

/** PRs waiting for a run of the planner: fresh ones and suspects, oldest (by priority, then submission) first. */
function waitingForRun(state: QueueState): PullRequestEntry[] {
  return state.line
    .map((prNumber) => entry(state, prNumber))
    .filter((pr) => pr.state === "pending" || (pr.state === "pending_failure" && pr.sidelined === true))
    .sort(compareQueueOrder);
}

/** Whether the PR spent its test starts of the hour (restart-budget.ts): it waits, in its place, meanwhile. */
function heldBack(state: QueueState, pr: PullRequestEntry, now: number): boolean {
  return testBudgetFreesAt(state, [pr.number]) > now;
}

/** The PRs a new run may take now: waiting ones within their test budget. */
function candidates(state: QueueState, now: number): PullRequestEntry[] {
  return waitingForRun(state).filter((pr) => !heldBack(state, pr, now));
}

/**
 * When a PR held back by its test budget may start again, while nothing else would wake the planner (no run in
 * flight whose end plans again): the earliest such time after the PR last changed state, or null.
 */
export function proofBudgetDeadline(state: QueueState): number | null {
  if (!usesProofPlanner(state.settings) || !canStartRuns(state)) return null;
  if (state.merging !== null || inProgressRuns(state).length > 0) return null;
  const proven = state.line
    .map((prNumber) => entry(state, prNumber))
    .filter((pr) => pr.state === "tests_passed");
  const waiting = [...waitingForRun(state), ...proven];
  const frees = waiting.flatMap((pr) => {
    const at = testBudgetFreesAt(state, [pr.number]);
    return Number.isFinite(at) && at > (pr.history.at(-1)?.at ?? -Infinity) ? [at] : [];
  });
  return frees.length === 0 ? null : Math.min(...frees);
}

/**
 * How many fresh PRs go in one group: `separate_proof` takes `batchingMinSize` with batching on, else one;
 * `auto` takes the size that proves the most PRs per run at the observed rates, but no more than spreads the
 * waiting PRs over the free slots (an idle slot costs nothing, and smaller groups land sooner).
 */
export function freshGroupSize(state: QueueState, rates: QueueRates, fresh: number, slots: number): number {
  const { optimizationMode, batch, batchingMinSize } = state.settings;
  if (optimizationMode !== "auto") return batch ? batchingMinSize : 1;
  const best = bestGroupSize(rates.failureRate, rates, AUTO_MAX_GROUP);
  return Math.max(1, Math.min(best, Math.ceil(fresh / Math.max(1, slots))));
}

/** What a suspect's next run is: part of its narrowest failed set, or itself alone. */
interface SuspectPlan {
  readonly group: number[];
  /**
   * It would go alone while PRs of its failed sets, set aside ones included, are still to be proven or failed
   * elsewhere: each proof of them pins the failure on it at no cost, so it waits behind every other candidate.
   */
  readonly deferred: boolean;
}

/**
 * A suspect's next run: the first half of the waiting holders of its narrowest failed set, or itself alone.
 * While a part of that set is testing the rest waits for its answer (null), unless slots are to spare: then the
 * rest is tested at once, beside it, which costs a run nobody else needed and saves a CI cycle.
 */
function suspectPlan(
  state: QueueState,
  pr: PullRequestEntry,
  waiting: ReadonlySet<number>,
  spare: boolean,
): SuspectPlan | null {
  const { failedSets } = evidenceOf(pr);
  const set = [...failedSets].sort((a, b) => a.length - b.length)[0];
  if (set === undefined) return { group: [pr.number], deferred: companionsUndecided(state, pr) };
  const holders = set.filter((member) => {
    const other = state.prs[member];
    return other !== undefined && evidenceOf(other).failedSets.some((held) => sameSet(held, set));
  });
  const members = holders.filter((member) => waiting.has(member));
  if (holders.some((member) => state.prs[member]?.state === "testing")) {
    return spare && members.length > 0 ? { group: members, deferred: false } : null;
  }
  if (members.length > 1) return { group: members.slice(0, Math.ceil(members.length / 2)), deferred: false };
  return { group: [pr.number], deferred: companionsUndecided(state, pr) };
}

/**
 * Whether PRs it failed runs with are still to be decided, in its failed sets or in those set aside (a later
 * failure made another PR of the set the likelier culprit): each of them proven pins that failure on it for
 * free, where a run of its own costs a whole one.
 */
function companionsUndecided(state: QueueState, pr: PullRequestEntry): boolean {
  const { failedSets, setAside } = evidenceOf(pr);
  return [...failedSets, ...(setAside ?? [])].some((held) =>
    held.some((member) => member !== pr.number && !isTerminal(state.prs[member]?.state ?? "cancelled")),
  );
}

/**
 * The next group to test, from the oldest candidate: suspects of one failed set test its first half (the other
 * half waits for the answer); a suspect left alone goes alone, after every other candidate while PRs it failed
 * with are still to be decided; a fresh PR goes with the fresh PRs behind it up to the group size, but a risky
 * one (odds of being broken above RISKY) goes alone. Null: nothing can start.
 */
export function nextGroup(state: QueueState, rates: QueueRates, slots: number, now: number): number[] | null {
  const waiting = candidates(state, now);
  const waitingNumbers = new Set(waiting.map((pr) => pr.number));
  const fresh = waiting.filter((pr) => !isSuspect(pr));
  let deferred: number[] | null = null;
  for (const pr of waiting) {
    if (isSuspect(pr)) {
      const plan = suspectPlan(state, pr, waitingNumbers, waiting.length <= slots);
      if (plan === null) continue;
      if (!plan.deferred) return plan.group;
      deferred ??= plan.group;
      continue;
    }
    if (probabilityBroken(pr, rates) >= RISKY) return [pr.number];
    const size = freshGroupSize(state, rates, fresh.length, slots);
    return fresh
      .filter((other) => other === pr || probabilityBroken(other, rates) < RISKY)
      .slice(0, size)
      .map((other) => other.number);
  }
  return deferred;
}

/** The target is still what the run was built on: nothing merged or pushed since it started. */
function builtOnTarget(state: QueueState, run: TestRun): boolean {
  return run.basisSha === state.target.basisSha && run.mergeCountAtStart === state.target.mergeCount;
}

/**
 * Whether a run can still land as it was built: a root on the target as it is, itself built on proven PRs only,
 * or a run built on one that can (it lands right after it), or on one that landed.
 */
function onLandingLine(state: QueueState, run: TestRun): boolean {
  if (run.baseRunId === null) {
    return builtOnTarget(state, run) && run.dependsOn.every((prNumber) => isProven(entry(state, prNumber)));
  }
  const base = state.runs[run.baseRunId];
  if (base === undefined || run.basisSha !== state.target.basisSha) return false;
  const ahead = baseToLand(state, run);
  return ahead === undefined || (standing(ahead) && onLandingLine(state, ahead));
}

/** The run a run was built on, while that one has not landed; undefined for a run on the target itself. */
function baseToLand(state: QueueState, run: TestRun): TestRun | undefined {
  const base = run.baseRunId === null ? undefined : state.runs[run.baseRunId];
  return base === undefined || base.testBranchSha === state.target.headSha ? undefined : base;
}

/** In flight, or passed with its tested commit kept: it may still land. */
function standing(run: TestRun): boolean {
  return run.status === "in_progress" || (run.status === "succeeded" && !run.branchDeleted);
}

/** Whether a run in flight, or passed and not merged yet, would land every proven PR on the target as it is. */
function provenCovered(state: QueueState, proven: readonly number[]): boolean {
  return Object.values(state.runs).some((run) => {
    if (!standing(run)) return false;
    const content = runContent(run);
    return proven.every((prNumber) => content.includes(prNumber)) && onLandingLine(state, run);
  });
}

/**
 * How likely the landing line must be to land up to a run for new PRs to be tested on top of it (speculation):
 * below it, a group is tested on the target and the proven PRs, where its run proves it whatever happens ahead.
 * While PRs wait for slots a run cancelled because the one below it failed costs a slot another group needed;
 * with slots to spare it costs nothing, and a group that lands with the chain lands a CI run sooner. Where broken
 * PRs are rare (brokenPrsRare) the lower bar holds even while PRs wait: a run there fails mostly by a flake.
 */
export const SPECULATE_AT = 0.7;
export const SPECULATE_AT_WITH_SLOTS_TO_SPARE = 0.3;

/**
 * Whether the planner speculates: `separate_proof` with `pendingFailureDepth` ≥ 1, and `auto`.
 */
function speculates(state: QueueState): boolean {
  const { optimizationMode, pendingFailureDepth } = state.settings;
  return optimizationMode === "auto" || (optimizationMode === "separate_proof" && pendingFailureDepth > 0);
}

/** The probability that a run on the landing line passes and lands: its unproven PRs and every run ahead pass. */
function landingOdds(state: QueueState, run: TestRun, rates: QueueRates): number {
  const unproven = run.prs.map((pr) => entry(state, pr.number)).filter((pr) => !isProven(pr));
  const own =
    run.status === "succeeded"
      ? 1
      : groupPassProbability(
          unproven.map((pr) => probabilityBroken(pr, rates)),
          rates,
        );
  const ahead = baseToLand(state, run);
  return own * (ahead === undefined ? 1 : landingOdds(state, ahead, rates));
}

/** The first run of the chain a run is built on: it lands first. */
function rootOf(state: QueueState, run: TestRun): TestRun {
  const ahead = baseToLand(state, run);
  return ahead === undefined ? run : rootOf(state, ahead);
}

/**
 * The probable future to test new PRs on: the chain's end (chainEnd) once its commit exists, when it is likely
 * enough to land (`threshold`: SPECULATE_AT, or lower with slots to spare or where broken PRs are rare).
 */
function speculationBase(
  state: QueueState,
  tail: TestRun | undefined,
  rates: QueueRates,
  threshold: number,
): TestRun | undefined {
  if (tail === undefined || tail.testBranchSha === null) return undefined;
  return landingOdds(state, tail, rates) >= threshold ? tail : undefined;
}

/**
 * The end of the one chain on the landing line, the chain whose first run started first (it lands first). Every
 * new group goes at that chain's end, so that each lands right after the one before it, without a run of its own
 * on a target that moved. Other runs on the target only prove their groups: chains side by side would race, and
 * all but one would be built on a target gone by.
 */
function chainEnd(state: QueueState): TestRun | undefined {
  // A run that passed and waits for the one it was built on to land is on the chain too: it lands next.
  const line = Object.values(state.runs).filter((run) => standing(run) && onLandingLine(state, run));
  const tails = line.filter((run) => !line.some((other) => other.baseRunId === run.id));
  const first = (a: TestRun, b: TestRun) => rootOf(state, a).startedAt - rootOf(state, b).startedAt;
  return tails.sort(first)[0];
}

/** What a run built on `base` stands on above the target: its content, less what has landed since it started. */
function contentAbove(state: QueueState, base: TestRun): number[] {
  return runContent(base).filter((prNumber) => entry(state, prNumber).state !== "merged");
}

/** The PRs proven and waiting that a run on `base` does not hold: they ride along, to land with it. */
function provenLeftOut(state: QueueState, base: readonly number[]): number[] {
  return state.line.filter(
    (prNumber) => entry(state, prNumber).state === "tests_passed" && !base.includes(prNumber),
  );
}

/**
 * Runs built on a run that failed or was cancelled can never land, and a failure there most likely repeats in
 * them: they are cancelled, and their PRs go back to be tested on what can still land.
 */
function dropStrandedRuns(draft: QueueDraft): void {
  for (const run of inProgressRuns(draft.state)) {
    const base = run.baseRunId === null ? undefined : draft.state.runs[run.baseRunId];
    if (base === undefined || (base.status !== "failed" && base.status !== "cancelled")) continue;
    const why = `Run ${run.id} was built on run ${base.id}, which ${base.status}; its PRs are tested again.`;
    endRun(draft, run.id, "cancelled", "pr_ahead_failed", why);
    putMembersBack(draft, run, "pr_ahead_failed", why);
  }
}

/** Starts groups while slots are free, then, with a slot left, a landing run of the proven PRs alone. */
export function startProofRuns(draft: QueueDraft): void {
  if (!canStartRuns(draft) || draft.state.merging !== null) return;
  if (speculates(draft.state)) dropStrandedRuns(draft);
  let slots = draft.state.settings.concurrency - inProgressRuns(draft.state).length;
  if (slots <= 0) return;
  const rates = queueRates(draft.state);
  const spare = candidates(draft.state, draft.now).length <= slots;
  // Where broken PRs are rare, a run that fails most likely flaked: fresh groups take the chain at the bar of
  // slots to spare even while PRs wait, which lands each a CI run sooner, and wait for the chain's end to have its
  // commit rather than race it. `auto` alone: the manual modes keep the bar their settings chose.
  const rare = draft.state.settings.optimizationMode === "auto" && brokenPrsRare(draft.state, rates);
  const threshold = rare || spare ? SPECULATE_AT_WITH_SLOTS_TO_SPARE : SPECULATE_AT;
  while (slots > 0) {
    const group = nextGroup(draft.state, rates, slots, draft.now);
    if (group === null) break;
    const fresh = !group.some((prNumber) => isSuspect(entry(draft.state, prNumber)));
    const tail = fresh && speculates(draft.state) ? chainEnd(draft.state) : undefined;
    if (rare && tail?.testBranchSha === null) break;
    const onRun = speculationBase(draft.state, tail, rates, threshold);
    const dependsOn = onRun === undefined ? provenPrs(draft.state) : contentAbove(draft.state, onRun);
    const members = onRun === undefined ? group : [...provenLeftOut(draft.state, dependsOn), ...group];
    startPlannedRun(draft, members, dependsOn, onRun);
    slots--;
  }
  const proven = draft.state.line.filter((prNumber) => entry(draft.state, prNumber).state === "tests_passed");
  const withinBudget = proven.every(
    (prNumber) => !heldBack(draft.state, entry(draft.state, prNumber), draft.now),
  );
  if (slots > 0 && proven.length > 0 && withinBudget && !provenCovered(draft.state, provenPrs(draft.state))) {
    const tail = speculates(draft.state) ? chainEnd(draft.state) : undefined;
    const onRun = speculationBase(draft.state, tail, rates, threshold);
    const dependsOn = onRun === undefined ? [] : contentAbove(draft.state, onRun);
    startPlannedRun(
      draft,
      onRun === undefined ? proven : provenLeftOut(draft.state, dependsOn),
      dependsOn,
      onRun,
    );
  }
}

/** Starts a run of the planner; PRs tested before are merged as new commits, so that CI runs them again. */
function startPlannedRun(
  draft: QueueDraft,
  members: readonly number[],
  dependsOn: readonly number[],
  onRun: TestRun | undefined,
): void {
  if (members.length === 0) return;
  const retested = members.some((prNumber) =>
    entry(draft.state, prNumber).history.some((step) => step.state === "testing"),
  );
  startRun(draft, members, undefined, { dependsOn, freshCommits: retested, ...(onRun ? { onRun } : {}) });
}

/**
 * What a passed run lets land: everything it holds, all proven, when the target is still what it was built on
 * (targetOfRun, and nothing merged since). Null when it never can: the target moved past that.
 */
function landingOf(state: QueueState, run: TestRun): MergePlan | null | undefined {
  // Only on exactly the target it was built on (a landing since may have put other commits of its PRs there),
  // or, for a speculative run, on the tested commit of the run it was built on, once that landed.
  const onBase =
    run.baseRunId !== null &&
    run.basisSha === state.target.basisSha &&
    state.runs[run.baseRunId]?.testBranchSha === state.target.headSha;
  const target = builtOnTarget(state, run) || onBase ? targetOfRun(state, run) : null;
  // Built on a run that is still to land: it waits for it.
  if (target === null) return onLandingLine(state, run) ? undefined : null;
  if (target.unmerged.length === 0) return undefined;
  // One of it left the queue: it never lands.
  if (target.unmerged.some((prNumber) => isTerminal(entry(state, prNumber).state))) return null;
  if (!target.unmerged.every((prNumber) => isProven(entry(state, prNumber)))) return undefined;
  const { mergeMethod } = state.settings;
  const rewritten = run.mergeCountAtStart < (state.target.rewrittenUpTo ?? 0);
  const fastForward = mergeMethod === "merge_commit" && !rewritten && target.prefixOfTestedCommit;
  if (mergeMethod === "merge_commit" && !fastForward) return null;
  return { run, prNumbers: target.unmerged, fastForward };
}

/**
 * Lands the passed run holding the most PRs on what the target holds, and retires the passed runs that never
 * can (their PRs stay proven). A proven PR retested by a landing run meanwhile leaves that run: it lands now.
 */
export function planProofLanding(draft: QueueDraft): void {
  const state = draft.state;
  if (state.merging !== null || state.status === "paused") return;
  let best: MergePlan | undefined;
  for (const run of Object.values(state.runs)) {
    if (run.status !== "succeeded" || run.branchDeleted || run.testBranchSha === null) continue;
    const plan = landingOf(state, run);
    if (plan === null) retireRun(draft, run.id);
    else if (plan !== undefined && plan.prNumbers.length > (best?.prNumbers.length ?? 0)) best = plan;
  }
  if (best === undefined) return;
  const landingRuns = new Set(
    best.prNumbers.flatMap((prNumber) => {
      const pr = entry(state, prNumber);
      return pr.state === "testing" && pr.testRunId !== null ? [pr.testRunId] : [];
    }),
  );
  const detail = `Run ${best.run.id}, which holds it, passed on ${state.targetBranch}; it lands with it.`;
  for (const runId of landingRuns) {
    endRun(draft, runId, "cancelled", "superseded", detail);
    for (const prNumber of best.prNumbers) {
      const pr = entry(draft.state, prNumber);
      if (pr.state === "testing" && pr.testRunId === runId) {
        transition(draft, prNumber, "tests_passed", "tests_passed", detail);
      }
    }
    // The others tested with them learned nothing: a suspect among them stays one.
    const why = `Run ${runId} was cancelled: run ${best.run.id} lands PRs it held. It is tested again.`;
    putMembersBack(draft, state.runs[runId] as TestRun, "pr_ahead_requeued", why);
  }
  mergeNext(draft, best);
}
