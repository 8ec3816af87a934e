// docs/queue.md#bisection: a failed batch is bisected in its own pool of runs until the PRs that failed it are found,
// and (confirmFailures) a suspect is tested once more before it fails.
import type { QueueDraft } from "./draft.ts";
import type { FailedGroup } from "./failed-groups.ts";
import { failedGroups, groupBase, nextStepOf, skipsRedundantTests } from "./failed-groups.ts";
import { suspectVerdict } from "./failures.ts";
import { inProgressRuns } from "./run-lifecycle.ts";
import { canStartRuns, startRun } from "./runs.ts";
import type { QueueState } from "./state.ts";

/** docs/queue.md#settings: `bisectionConcurrency` follows `concurrency` until set. */
export function bisectionSlots(state: QueueState): number {
  const { bisectionConcurrency, concurrency } = state.settings;
  const inUse = inProgressRuns(state).filter((run) => run.purpose !== undefined).length;
  return (bisectionConcurrency ?? concurrency) - inUse;
}

/** `prNumbers` cut into `parts` consecutive parts of sizes that differ by one at most. */
function cut(prNumbers: readonly number[], parts: number): number[][] {
  return Array.from({ length: parts }, (_, index) =>
    prNumbers.slice(
      Math.floor((index * prNumbers.length) / parts),
      Math.floor(((index + 1) * prNumbers.length) / parts),
    ),
  );
}

/**
 * Tests the parts of a failed group, each on top of the ones before it, as they were in the failed run: the
 * first part that fails holds the first culprit, and the parts before it are cleared. The whole group on its
 * base is the failed run: with `bisection_skip_redundant_tests` its last part is not tested again (it stays in
 * the group, which is split on), so the slots test as many cuts as they can; otherwise every part is tested.
 */
function split(draft: QueueDraft, group: FailedGroup, slots: number): number {
  const skip = skipsRedundantTests(draft.state);
  const size = group.prNumbers.length;
  const parts = cut(group.prNumbers, Math.min(size, skip ? slots + 1 : Math.max(2, slots)));
  const tested = skip ? parts.slice(0, -1) : parts.slice(0, slots);
  const base = groupBase(draft.state, group);
  tested.forEach((part, index) => {
    startRun(draft, part, {
      purpose: "bisection",
      failedRunId: group.run.id,
      dependsOn: [...base, ...parts.slice(0, index).flat()],
      why: `Bisecting run ${group.run.id}, which failed with ${group.run.prs.length} PRs`,
    });
  });
  return tested.length;
}

/**
 * Starts what the sidelined groups need next, in the order they left the stack, while the bisection pool has
 * room: a split, the retest of a group's last part, or the confirmation run of a suspect.
 */
export function startBisections(draft: QueueDraft): void {
  if (!canStartRuns(draft)) return;
  let slots = bisectionSlots(draft.state);
  const done = new Set<string>();
  while (slots > 0) {
    const group = failedGroups(draft.state).find(
      (candidate) => !done.has(candidate.run.id) && needsRun(draft.state, candidate),
    );
    if (group === undefined) return;
    // A group whose last part stays (skipped as redundant) is split on when the parts before it passed.
    done.add(group.run.id);
    const step = nextStepOf(draft.state, group);
    if (step === "split") {
      slots -= split(draft, group, slots);
      continue;
    }
    const confirming = step === "suspect";
    startRun(draft, group.prNumbers, {
      purpose: confirming ? "confirmation" : "bisection",
      failedRunId: group.run.id,
      dependsOn: groupBase(draft.state, group),
      why: confirming
        ? `Run ${group.run.id} failed; testing it once more, alone, before failing it`
        : `Bisecting run ${group.run.id}: its last part again`,
    });
    slots--;
  }
}

function needsRun(state: QueueState, group: FailedGroup): boolean {
  const step = nextStepOf(state, group);
  if (step !== "suspect") return true;
  return suspectVerdict(state, group.prNumbers[0] as number, group.run).decision === "confirm";
}
