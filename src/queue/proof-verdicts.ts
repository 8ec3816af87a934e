// What the proof planner (proof-planner.ts) learns when one of its runs ends. A run holds the target, PRs
// already proven good and one group of unproven PRs: a pass proves the group; a failure blames the group alone
// (or a flake), never the proven PRs and never another run. Evidence accumulates on each PR (failure-odds.ts)
// until its odds decide it.
import { removeFromQueue } from "./abandonment.ts";
import type { QueueDraft } from "./draft.ts";
import { evidenceOf, isProven, isSuspect, queueRates, shouldReject } from "./failure-odds.ts";
import { endRun, requireRun } from "./run-lifecycle.ts";
import type { FailureReason, PrEvidence, StateReason, TestRun } from "./state.ts";

type TestFailureReason = Extract<FailureReason, "tests_failed" | "timeout">;
import { isTerminal } from "./state.ts";
import { patchPr, requirePr, returnToWaiting, transition } from "./transitions.ts";

function amend(draft: QueueDraft, prNumber: number, change: (evidence: PrEvidence) => PrEvidence): void {
  patchPr(draft, prNumber, { evidence: change(evidenceOf(requirePr(draft, prNumber))) });
}

function numbered(prNumbers: readonly number[]): string {
  return prNumbers.map((prNumber) => `#${prNumber}`).join(", ");
}

/** The members of a run still testing in it (one cancelled meanwhile left it). */
function membersOf(draft: QueueDraft, run: TestRun): number[] {
  return run.prs
    .map((tested) => tested.number)
    .filter((prNumber) => {
      const pr = draft.pr(prNumber);
      return pr?.state === "testing" && pr.testRunId === run.id;
    });
}

/** The PRs a run was built on that are not proven (a speculative run's base group), still queued. */
function unprovenAhead(draft: QueueDraft, run: TestRun): number[] {
  return run.dependsOn.filter((prNumber) => {
    const pr = draft.pr(prNumber);
    return pr !== undefined && !isTerminal(pr.state) && !isProven(pr);
  });
}

/** A proven PR whose run failed or ended without a verdict: it stays proven. */
function backToProven(draft: QueueDraft, prNumber: number, run: TestRun): void {
  transition(
    draft,
    prNumber,
    "tests_passed",
    "tests_passed",
    `Run ${run.id} ended; it stays proven and lands with the next run that passes.`,
  );
}

/** A suspect waits on the side until the planner retests it (alone, or with part of its group). */
function awaitRetest(draft: QueueDraft, prNumber: number, reason: TestFailureReason, detail: string): void {
  const pr = requirePr(draft, prNumber);
  if (pr.state === "pending_failure" && pr.sidelined === true) return;
  transition(draft, prNumber, "pending_failure", reason, detail, { sidelined: true, passingRunId: null });
}

/** A suspect no failure points at any more goes back among the fresh PRs. */
function clearSuspect(draft: QueueDraft, prNumber: number, why: string): void {
  const pr = requirePr(draft, prNumber);
  if (isSuspect(pr) || pr.state !== "pending_failure") return;
  returnToWaiting(draft, prNumber, "cleared_by_retest", why);
}

/** The failed sets of a PR that hold none of `prNumbers`. */
function without(sets: readonly (readonly number[])[] | undefined, prNumbers: readonly number[]) {
  return (sets ?? []).filter((set) => !set.some((member) => prNumbers.includes(member)));
}

/**
 * A part of the failed sets, held by PRs outside `explained`, that overlap it failed again: the failure most
 * likely lies there, so those PRs are no longer suspected for them and go back among the fresh PRs. The sets
 * stay with them, set aside: should the PRs that failed again be proven, they still point at them.
 */
function setAsideOverlapping(draft: QueueDraft, explained: readonly number[], why: string): void {
  for (const prNumber of draft.state.line) {
    if (explained.includes(prNumber)) continue;
    const { failedSets, setAside } = evidenceOf(requirePr(draft, prNumber));
    const standing = without(failedSets, explained);
    if (standing.length === failedSets.length) continue;
    const aside = failedSets.filter((set) => !standing.includes(set));
    amend(draft, prNumber, (evidence) => ({
      ...evidence,
      failedSets: standing,
      setAside: [...(setAside ?? []), ...aside],
    }));
    clearSuspect(draft, prNumber, why);
  }
}

/** PRs failed for good explain every failure they were tested in: the others' sets holding them go. */
function explainByFailure(draft: QueueDraft, failed: readonly number[], why: string): void {
  for (const prNumber of draft.state.line) {
    const { failedSets, setAside } = evidenceOf(requirePr(draft, prNumber));
    const standing = without(failedSets, failed);
    const aside = without(setAside, failed);
    if (standing.length === failedSets.length && aside.length === (setAside ?? []).length) continue;
    amend(draft, prNumber, (evidence) => ({ ...evidence, failedSets: standing, setAside: aside }));
    clearSuspect(draft, prNumber, why);
  }
}

/** Fails the PRs whose odds reached the verdict; their groups' other suspects are explained by them. */
function decide(
  draft: QueueDraft,
  prNumbers: readonly number[],
  reason: TestFailureReason,
  detail: string,
): void {
  const rates = queueRates(draft.state);
  const rejected = prNumbers.filter((prNumber) => {
    const pr = draft.pr(prNumber);
    return pr !== undefined && pr.state !== "failed" && shouldReject(pr, rates);
  });
  for (const prNumber of rejected) {
    const pinned = evidenceOf(requirePr(draft, prNumber)).pinnedFailures;
    removeFromQueue(draft, prNumber, {
      to: "failed",
      reason,
      detail: `${detail} It failed ${pinned} runs that no other PR in them can explain.`,
    });
  }
  if (rejected.length > 0) explainByFailure(draft, rejected, `${numbered(rejected)} failed for good.`);
}

/** The sets less the PRs proven since, and how many were left with one PR alone: each a pinned failure. */
function narrowed(sets: readonly (readonly number[])[] | undefined, proven: readonly number[]) {
  const left = (sets ?? []).map((set) => set.filter((member) => !proven.includes(member)));
  return { sets: left.filter((set) => set.length > 1), pins: left.filter((set) => set.length === 1).length };
}

/**
 * PRs proven since: each failed set holding them, set aside or not, narrows to the others; a set left with one
 * PR alone pins its failure on it (a PR so pinned while waiting as a fresh one is planned as a suspect: alone).
 */
function narrowSuspicions(draft: QueueDraft, proven: readonly number[], reason: TestFailureReason): void {
  const pinned: number[] = [];
  const holds = (set: readonly number[]) => set.some((member) => proven.includes(member));
  for (const prNumber of draft.state.line) {
    const { failedSets, setAside } = evidenceOf(requirePr(draft, prNumber));
    if (!failedSets.some(holds) && !(setAside ?? []).some(holds)) continue;
    const suspected = narrowed(failedSets, proven);
    const aside = narrowed(setAside, proven);
    const pins = suspected.pins + aside.pins;
    amend(draft, prNumber, (evidence) => ({
      ...evidence,
      failedSets: suspected.sets,
      setAside: aside.sets,
      pinnedFailures: evidence.pinnedFailures + pins,
    }));
    if (pins > 0) pinned.push(prNumber);
  }
  decide(draft, pinned, reason, `The others tested with it passed since (${numbered(proven)}).`);
}

/** A run of the planner passed: its group is proven, and so narrows what earlier failures point at. */
export function onProofRunPassed(draft: QueueDraft, run: TestRun): void {
  endRun(
    draft,
    run.id,
    "succeeded",
    "succeeded",
    `All required statuses passed on ${run.testBranchSha ?? ""}.`,
  );
  const members = membersOf(draft, run);
  // A speculative run also holds the group of the run it was built on: its pass proves that group too.
  const ahead = unprovenAhead(draft, run);
  const newlyProven = [...ahead, ...members].filter((prNumber) => !isProven(requirePr(draft, prNumber)));
  for (const prNumber of ahead) {
    const pr = requirePr(draft, prNumber);
    const evidence = {
      ...evidenceOf(pr),
      failedSets: [],
      setAside: [],
      passedRuns: evidenceOf(pr).passedRuns + 1,
    };
    // Still testing in its own run, it is proven there (that run's result no longer matters).
    if (pr.state === "testing") patchPr(draft, prNumber, { passingRunId: run.id, evidence });
    else {
      transition(draft, prNumber, "tests_passed", "tests_passed", `Run ${run.id}, which holds it, passed.`, {
        passingRunId: run.id,
        sidelined: false,
        evidence,
      });
    }
  }
  for (const prNumber of members) {
    transition(
      draft,
      prNumber,
      "tests_passed",
      "tests_passed",
      `Run ${run.id} passed; it lands with the first run that passes on what ${draft.state.targetBranch} holds.`,
      {
        passingRunId: run.id,
        sidelined: false,
        evidence: {
          ...evidenceOf(requirePr(draft, prNumber)),
          failedSets: [],
          setAside: [],
          passedRuns: evidenceOf(requirePr(draft, prNumber)).passedRuns + 1,
        },
      },
    );
  }
  if (newlyProven.length > 0) narrowSuspicions(draft, newlyProven, "tests_failed");
}

/**
 * A run of the planner failed: only its unproven group can be to blame (or a flake). One PR alone takes the
 * failure; a group shares it, to be split by the planner. Proven PRs in it stay proven.
 */
export function onProofRunFailed(
  draft: QueueDraft,
  runId: string,
  reason: TestFailureReason,
  detail: string,
): void {
  endRun(draft, runId, "failed", reason, detail);
  const run = requireRun(draft, runId);
  const members = membersOf(draft, run);
  const own = members.filter((prNumber) => !isProven(requirePr(draft, prNumber)));
  for (const prNumber of members) if (!own.includes(prNumber)) backToProven(draft, prNumber, run);
  // A speculative run's failure may be its base group's as well: all its unproven PRs share it.
  const unproven = [...unprovenAhead(draft, run), ...own];
  if (unproven.length === 0) return;
  const alone = unproven.length === 1;
  for (const prNumber of unproven) {
    amend(draft, prNumber, (evidence) => ({
      ...evidence,
      failedRuns: evidence.failedRuns + 1,
      failedSets: alone ? evidence.failedSets : [...evidence.failedSets, unproven],
      pinnedFailures: evidence.pinnedFailures + (alone ? 1 : 0),
    }));
  }
  setAsideOverlapping(draft, unproven, `Run ${run.id} of ${numbered(unproven)} failed, which explains it.`);
  const why = alone
    ? `${detail} It is retested before it fails.`
    : `${detail} Run ${run.id} tested ${numbered(unproven)} together; they are split and retested.`;
  for (const prNumber of own) awaitRetest(draft, prNumber, reason, why);
  decide(draft, unproven, reason, detail);
}

/**
 * A run that ended without a verdict on its group (flaked, or cancelled for a landing) puts its members back as
 * they were: proven PRs stay proven, suspects wait to be retested, fresh PRs wait again (`freshReason`).
 */
export function putMembersBack(
  draft: QueueDraft,
  run: TestRun,
  freshReason: Extract<StateReason, "flaky_failure" | "pr_ahead_requeued" | "pr_ahead_failed">,
  why: string,
): void {
  for (const prNumber of membersOf(draft, run)) {
    const pr = requirePr(draft, prNumber);
    if (isProven(pr)) backToProven(draft, prNumber, run);
    else if (isSuspect(pr)) awaitRetest(draft, prNumber, "tests_failed", why);
    else returnToWaiting(draft, prNumber, freshReason, why);
  }
}

/**
 * The flake path: a run whose failure is known to be a flake (every failing test is a known-flaky one) counts
 * as flaked. Its PRs are retested as they were (on the target and the proven PRs, as the run was built), and
 * nobody is split, suspected or failed for it. A run already judged has its evidence taken back: the failure
 * it added to its PRs, as long as they still stand on it.
 */
export function treatRunAsFlaked(
  draft: QueueDraft,
  runId: string,
  why = `Run ${runId} failed only by known-flaky tests; it is retested.`,
): void {
  const run = draft.run(runId);
  if (run === undefined) return;
  if (run.status === "in_progress") endRun(draft, runId, "failed", "flaky_failure", why);
  if (membersOf(draft, run).length > 0) {
    putMembersBack(draft, run, "flaky_failure", why);
    return;
  }
  if (run.status !== "failed") return;
  const standing = run.prs
    .map((tested) => tested.number)
    .filter((prNumber) => {
      const pr = draft.pr(prNumber);
      return pr?.state === "pending_failure" && pr.testRunId === runId;
    });
  const alone = standing.length === 1 && run.prs.length === 1;
  const group = run.prs.map((tested) => tested.number);
  for (const prNumber of standing) {
    amend(draft, prNumber, (evidence) => ({
      ...evidence,
      failedRuns: Math.max(0, evidence.failedRuns - 1),
      // The run's own set (its group, less the PRs proven since) goes; so does the pin it made alone.
      failedSets: evidence.failedSets.filter((set) => !set.every((member) => group.includes(member))),
      setAside: (evidence.setAside ?? []).filter((set) => !set.every((member) => group.includes(member))),
      pinnedFailures: Math.max(0, evidence.pinnedFailures - (alone ? 1 : 0)),
    }));
    clearSuspect(draft, prNumber, why);
  }
}
