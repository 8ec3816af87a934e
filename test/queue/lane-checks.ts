import { expect } from "vitest";
import type { QueueMode, QueueState, TestRun } from "../../src/queue/index.ts";
import { usesProofPlanner } from "../../src/queue/settings.ts";
import type { FakeGitHub } from "./fake-github.ts";
import { change } from "./fake-github.ts";

const STARTED = new Set(["testing", "tests_passed", "pending_failure"]);

/** The stack of runs: the started PRs at the front of the line that are not sidelined. */
function stack(state: QueueState): number[] {
  const started: number[] = [];
  for (const prNumber of state.line) {
    const pr = state.prs[prNumber];
    if (pr === undefined || !STARTED.has(pr.state) || pr.sidelined === true) break;
    started.push(prNumber);
  }
  return started;
}

/** A main-line run as it started: the stack ahead of its PRs, and the mode that decided its lanes. */
interface RunStart {
  /** The changes (`change(pr, head)`) of the PRs ahead: a PR may be submitted again with another head. */
  readonly ahead: readonly string[];
  readonly mode: QueueMode;
}

/** The PR number of a change. */
function prOf(token: string): number {
  return Number(token.slice(1, token.indexOf("@")));
}

/**
 * The proof planner builds every run on the proven PRs and one group: either unproven PRs (a group) on every
 * proven PR, or proven PRs alone (a landing run), or, on the one chain of runs that can land, on the content of
 * the chain's last run in flight (speculation), with the proven PRs it does not hold riding along ahead of the
 * group. Its merges follow proofs, not the line (see proof-planner.ts).
 */
function checkProofRun(state: QueueState, runId: string): void {
  const run = state.runs[runId] as TestRun;
  const proven = (prNumber: number) => {
    const pr = state.prs[prNumber];
    return pr?.state === "tests_passed" || (pr?.state === "testing" && pr.passingRunId !== null);
  };
  const own = run.prs.map((pr) => pr.number);
  if (run.baseRunId !== null) {
    // A speculative run: on top of a run in flight, holding exactly what of that run's content has not landed.
    const base = state.runs[run.baseRunId] as TestRun;
    expect(base.status, `run ${runId} is built on a run in flight`).toBe("in_progress");
    expect(run.dependsOn, `speculative run ${runId} holds its base run`).toEqual(
      [...base.dependsOn, ...base.prs.map((pr) => pr.number)].filter(
        (prNumber) => state.prs[prNumber]?.state !== "merged",
      ),
    );
    const riders = own.filter(proven);
    expect(own.slice(0, riders.length), `proven PRs ride ahead of run ${runId}'s group`).toEqual(riders);
    // A proven PR the base run already holds (a run on the target is built on every proven PR) is under it.
    const waiting = state.line.filter(
      (prNumber) => state.prs[prNumber]?.state === "tests_passed" && !run.dependsOn.includes(prNumber),
    );
    expect(waiting, `every proven PR waiting rides on run ${runId} or is under it`).toEqual([]);
    return;
  }
  for (const prNumber of run.dependsOn)
    expect(proven(prNumber), `#${prNumber} under run ${runId} is proven`).toBe(true);
  if (own.every(proven)) expect(run.dependsOn, `landing run ${runId} holds proven PRs only`).toEqual([]);
  else {
    for (const prNumber of own) expect(proven(prNumber), `#${prNumber} in group run ${runId}`).toBe(false);
    const all = state.line.filter(proven).filter((prNumber) => !own.includes(prNumber));
    expect([...run.dependsOn].sort(), `group run ${runId} is built on every proven PR`).toEqual(all.sort());
  }
}

/**
 * docs/queue.md#lanes, checked against the facts of the fake GitHub (what each PR's code impacts), not the queue's
 * own view of them: a run depends on exactly the PRs ahead in its lane closure (every one in single mode), so
 * PRs of disjoint lanes never wait for each other; and a PR merges only after every PR that was ahead of it
 * when its run started and that it overlaps with.
 */
export class LaneChecks {
  private readonly starts = new Map<string, RunStart>();

  constructor(private readonly github: FakeGitHub) {}

  private overlap(mode: QueueMode, a: string, b: string): boolean {
    return mode === "single" || !this.github.independent(a, b);
  }

  check(before: QueueState, after: QueueState): void {
    this.checkNewRuns(before, after);
    this.checkMergeOrder(before, after);
  }

  private checkNewRuns(before: QueueState, after: QueueState): void {
    const started = stack(after);
    const tokenOf = (prNumber: number) => change(prNumber, after.prs[prNumber]?.headSha ?? "");
    for (const run of Object.values(after.runs)) {
      const isNew = before.runs[run.id] === undefined && run.status === "in_progress";
      if (!isNew || run.purpose !== undefined) continue;
      const own = run.prs.map((pr) => pr.number);
      if (usesProofPlanner(after.settings)) {
        checkProofRun(after, run.id);
        continue;
      }
      const ahead = started.slice(0, started.indexOf(own[0] as number)).map(tokenOf);
      const mode = after.settings.mode;
      this.starts.set(run.id, { ahead, mode });
      const lane = own.map(tokenOf);
      const closure: number[] = [];
      for (const candidate of [...ahead].reverse()) {
        if (!lane.some((member) => this.overlap(mode, member, candidate))) continue;
        lane.push(candidate);
        closure.unshift(prOf(candidate));
      }
      expect(run.dependsOn, `run ${run.id} of ${own.join(", ")} depends on its lane ahead`).toEqual(closure);
    }
  }

  private checkMergeOrder(before: QueueState, after: QueueState): void {
    for (const pr of Object.values(after.prs)) {
      if (pr.state !== "merged" || before.prs[pr.number]?.state === "merged") continue;
      const start = pr.testRunId === null ? undefined : this.starts.get(pr.testRunId);
      if (start === undefined) continue;
      for (const ahead of start.ahead) {
        if (!this.overlap(start.mode, change(pr.number, pr.headSha), ahead)) continue;
        const aheadPr = after.prs[prOf(ahead)];
        expect(aheadPr?.state, `${ahead}, ahead of #${pr.number} in its lane, merged first`).toBe("merged");
        expect(aheadPr?.mergeIndex).toBeLessThan(pr.mergeIndex as number);
      }
    }
  }
}
