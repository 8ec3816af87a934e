// docs/queue.md#bisection: the PRs of a failed run still standing on its failure, and what finding the culprit among
// them takes next.
import { sidelinedPrs } from "./ordering.ts";
import type { QueueState, TestRun } from "./state.ts";
import { isTerminal } from "./state.ts";

/**
 * Sidelined PRs in pending_failure whose failed run is `run`: its last PRs, in order, once bisection took the
 * first ones into runs of their own. Their tested content, the PRs ahead of them and then them, is the failed
 * run's.
 */
export interface FailedGroup {
  readonly run: TestRun;
  readonly prNumbers: readonly number[];
}

/**
 * - `suspect`: one PR, whose failure is its own (docs/queue.md#failures decides: wait, confirm or fail);
 * - `split`: several PRs: bisect them (docs/queue.md#bisection);
 * - `retest`: the last part of a failed batch, tested again on top of the first part before it is split
 *   (what `bisection_skip_redundant_tests` skips: that is the failed run's own content).
 */
export type NextStep = "suspect" | "split" | "retest";

/** The failed groups among the sidelined PRs, in the order they left the stack. */
export function failedGroups(state: QueueState): FailedGroup[] {
  const groups = new Map<string, number[]>();
  for (const prNumber of sidelinedPrs(state)) {
    const pr = state.prs[prNumber];
    if (pr?.state !== "pending_failure" || pr.testRunId === null) continue;
    groups.set(pr.testRunId, [...(groups.get(pr.testRunId) ?? []), prNumber]);
  }
  return [...groups].flatMap(([runId, prNumbers]) => {
    const run = state.runs[runId];
    return run === undefined ? [] : [{ run, prNumbers }];
  });
}

export function skipsRedundantTests(state: QueueState): boolean {
  return state.settings.optimizationMode === "bisection_skip_redundant_tests";
}

export function nextStepOf(state: QueueState, group: FailedGroup): NextStep {
  const single = group.prNumbers.length === 1;
  if (skipsRedundantTests(state)) return single ? "suspect" : "split";
  if (group.prNumbers.length < group.run.prs.length) return "retest";
  return single ? "suspect" : "split";
}

/**
 * What a run of some of a group's PRs is tested on: the target with what the failed run had ahead of the
 * group still queued (what merged since is in the target), so that each part is tested as it was in the failed run.
 */
export function groupBase(state: QueueState, group: FailedGroup): number[] {
  const first = group.run.prs.findIndex((pr) => pr.number === group.prNumbers[0]);
  return [...group.run.dependsOn, ...group.run.prs.slice(0, first).map((pr) => pr.number)].filter(
    (prNumber) => {
      const pr = state.prs[prNumber];
      return pr !== undefined && !isTerminal(pr.state);
    },
  );
}
