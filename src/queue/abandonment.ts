import type { QueueDraft } from "./draft.ts";
import { activePrs, startedPrs } from "./ordering.ts";
import { endRun, relevantRun, retireRun } from "./run-lifecycle.ts";
import type { CancelReason, FailureReason, RequeueReason } from "./state.ts";
import { isStarted, isTerminal } from "./state.ts";
import { requirePr, returnToWaiting, transition } from "./transitions.ts";

/** Where a PR goes when it leaves its place among the started PRs. */
export type Departure =
  | { readonly to: "waiting"; readonly reason: RequeueReason; readonly detail: string }
  | { readonly to: "failed"; readonly reason: FailureReason; readonly detail: string }
  | { readonly to: "cancelled"; readonly reason: CancelReason; readonly detail: string };

/** What becomes of a PR built on one that left, or tested with it in the same run (`sameRun`). */
function consequence(
  prNumber: number,
  departure: Departure,
  sameRun: boolean,
): { reason: RequeueReason; detail: string } {
  const who = sameRun ? `#${prNumber}, tested with it,` : `#${prNumber} ahead of it`;
  switch (departure.to) {
    case "failed":
      return { reason: "pr_ahead_failed", detail: `${who} failed; it will be tested again without it.` };
    case "cancelled":
      return {
        reason: "pr_ahead_cancelled",
        detail: `${who} was cancelled; it will be tested again without it.`,
      };
    case "waiting":
      return {
        reason: "pr_ahead_requeued",
        detail: sameRun
          ? `${who} went back to the queue; it will be tested again.`
          : `${who} went back to the queue; it will be tested again behind it.`,
      };
  }
}

/**
 * Takes a started PR out of its runs. Everything built on it loses its predicted base and goes back to
 * waiting (testing → pending, retested without it: docs/queue.md#pr-states, #failures), and so do the PRs whose
 * success it vouched for (optimistic merging, docs/queue.md#failures): their passing run no longer stands.
 */
export function releaseStarted(
  draft: QueueDraft,
  prNumber: number,
  departure: Departure,
  leaving: ReadonlySet<number> = new Set(),
): void {
  const entry = requirePr(draft, prNumber);
  if (!isStarted(entry.state)) return;
  const ownRun = entry.state === "testing" && entry.testRunId !== null ? entry.testRunId : null;
  const passingRunId = entry.state === "tests_passed" ? entry.passingRunId : null;
  if (ownRun !== null) endRun(draft, ownRun, "cancelled", departure.reason, departure.detail);

  if (departure.to === "waiting") returnToWaiting(draft, prNumber, departure.reason, departure.detail);
  else {
    transition(draft, prNumber, departure.to, departure.reason, departure.detail, { passingRunId: null });
  }

  const affected: { prNumber: number; reason: RequeueReason; detail: string }[] = [];
  for (const other of activePrs(draft.state)) {
    // A merge in flight cannot be called back; its result decides what happens to its PRs. PRs already
    // leaving for a reason of their own are released for it.
    if (draft.state.merging?.prNumbers.includes(other) || leaving.has(other)) continue;
    const pr = requirePr(draft, other);
    // Runs on the side identify culprits: a PR of the stack that is only tested again leaves them standing.
    if (pr.sidelined === true && departure.to === "waiting" && entry.sidelined !== true) continue;
    const run = relevantRun(draft.state, pr);
    const sameRun =
      (ownRun !== null && pr.state === "testing" && pr.testRunId === ownRun) ||
      // Its failure was seen with this PR in the same run (docs/queue.md#bisection): it is tested again without it.
      (pr.state === "pending_failure" && run?.prs.some((tested) => tested.number === prNumber) === true);
    if (sameRun || run?.dependsOn.includes(prNumber)) {
      affected.push({ prNumber: other, ...consequence(prNumber, departure, sameRun) });
    } else if (passingRunId !== null && pr.passingRunId === passingRunId) {
      affected.push({
        prNumber: other,
        reason: "passing_run_withdrawn",
        detail: `Run ${passingRunId}, which passed with it, no longer stands (#${prNumber} left); it will be tested again.`,
      });
    }
  }
  releaseAll(draft, affected);
  // Every PR it vouched for was released above, so its tested commit can no longer become the target head.
  if (passingRunId !== null) retireRun(draft, passingRunId);
}

/** From the back, so each PR is released for its own reason before a PR ahead of it cascades onto it. */
function releaseAll(
  draft: QueueDraft,
  affected: readonly { prNumber: number; reason: RequeueReason; detail: string }[],
): void {
  const leaving = new Set(affected.map((pr) => pr.prNumber));
  for (const pr of [...affected].reverse()) {
    releaseStarted(draft, pr.prNumber, { to: "waiting", reason: pr.reason, detail: pr.detail }, leaving);
  }
}

/**
 * Takes PRs whose run failed out of the stack (see `PullRequestEntry.sidelined`): they wait in
 * pending_failure to be bisected or confirmed in the bisection pool, and everything built on them is tested
 * again without them at once, rather than after the verdict.
 */
export function sideline(
  draft: QueueDraft,
  prNumbers: readonly number[],
  reason: FailureReason,
  detail: string,
): void {
  for (const prNumber of prNumbers) {
    transition(draft, prNumber, "pending_failure", reason, detail, { sidelined: true });
  }
  const suspects = prNumbers.map((prNumber) => `#${prNumber}`).join(", ");
  const affected = startedPrs(draft.state)
    .filter((other) => {
      if (prNumbers.includes(other) || draft.state.merging?.prNumbers.includes(other)) return false;
      const run = relevantRun(draft.state, requirePr(draft, other));
      return run?.dependsOn.some((ahead) => prNumbers.includes(ahead)) === true;
    })
    .map((other) => ({
      prNumber: other,
      reason: "pr_ahead_failed" as const,
      detail:
        prNumbers.length === 1
          ? `${suspects} ahead of it failed; it will be tested again without it while it is retested.`
          : `${suspects} ahead of it failed; it will be tested again without them while they are retested.`,
    }));
  releaseAll(draft, affected);
}

/** Takes a PR out of the queue for good, wherever it stands. */
export function removeFromQueue(
  draft: QueueDraft,
  prNumber: number,
  departure: Exclude<Departure, { to: "waiting" }>,
): void {
  const entry = requirePr(draft, prNumber);
  if (isTerminal(entry.state)) return;
  if (isStarted(entry.state)) releaseStarted(draft, prNumber, departure);
  else transition(draft, prNumber, departure.to, departure.reason, departure.detail);
}
