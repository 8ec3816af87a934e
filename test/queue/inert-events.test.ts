// `isInert` lets the shell answer an event without stepping it: it must never call inert an event that would change
// the queue, on any state a step leaves, at any later time.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  compact,
  isInert,
  type QueueEvent,
  type QueueState,
  type StatusReport,
  step,
} from "../../src/queue/index.ts";
import { action, initialSettings } from "./actions.ts";
import { Simulation } from "./simulation.ts";
import { aCommitStatus, aPr, aQueue, T0 } from "../support/queue-factories.ts";

const MINUTE = 60_000;

/** Reports CI might send about the runs in flight: copies, older and newer ones, other checks and states. */
function probes(state: QueueState, received: readonly QueueEvent[]): QueueEvent[] {
  const reports = received.flatMap((event) => (event.type === "status_reported" ? [event] : []));
  const variants = (report: StatusReport): StatusReport[] => [
    report,
    { ...report, id: report.id - 1 },
    { ...report, id: report.id + 1 },
    { ...report, name: "lint" },
    report.kind === "status"
      ? { ...report, state: "pending" }
      : { ...report, status: "in_progress", conclusion: null },
  ];
  const testedShas = Object.values(state.runs).flatMap((run) => run.testBranchSha ?? []);
  return [
    { type: "tick" },
    ...reports.slice(-6).flatMap(({ sha, report }) => variants(report).map((r) => ({ ...reportOn(sha, r) }))),
    ...testedShas.map((sha) => reportOn(sha, aCommitStatus({ id: 1, state: "pending" }))),
    ...testedShas.map((sha) => reportOn(sha, aCommitStatus({ name: "job-7", id: 1, state: "pending" }))),
  ];
}

function reportOn(sha: string, report: StatusReport): QueueEvent {
  return { type: "status_reported", sha, report };
}

/** A simulated queue that, before each event it receives, asks `isInert` about many others, then steps them. */
class ProbingSimulation extends Simulation {
  inert = 0;
  probed = 0;

  override receive(event: QueueEvent): void {
    // What the runner saves: a step's state, compacted.
    const saved = compact(this.state, this.now);
    for (const probe of [event, ...probes(saved, this.received)]) {
      for (const later of [0, 1, 29, 31, 240]) {
        const now = this.now + later * MINUTE;
        this.probed++;
        if (!isInert(saved, probe, now)) continue;
        this.inert++;
        const result = step(saved, probe, now);
        expect(result.commands, `${JSON.stringify(probe)} inert yet emits`).toEqual([]);
        expect(result.state, `${JSON.stringify(probe)} inert yet changes the state`).toBe(saved);
        expect(compact(result.state, now)).toBe(saved);
      }
    }
    super.receive(event);
  }
}

describe("isInert", () => {
  it("calls inert only events that change nothing, on every state a random queue life goes through", () => {
    let inert = 0;
    let probed = 0;
    fc.assert(
      fc.property(
        initialSettings,
        fc.array(action, { minLength: 20, maxLength: 120 }),
        (settings, actions) => {
          const simulation = new ProbingSimulation(settings);
          for (const next of actions) simulation.apply(next);
          inert += simulation.inert;
          probed += simulation.probed;
        },
      ),
      { numRuns: 150 },
    );
    // Not vacuous: copies and stale reports are common in a queue's life.
    expect(inert).toBeGreaterThan(probed / 20);
  }, 120_000);

  it("calls a copy of a report already recorded inert, and a newer one not", () => {
    let state = aQueue({ concurrency: 1, requiredStatuses: ["ci"] });
    state = step(state, aPr(1), T0).state;
    const run = Object.values(state.runs)[0]!;
    state = step(state, { type: "test_branch_created", runId: run.id, sha: "tested" }, T0).state;
    const pending = reportOn("tested", aCommitStatus({ name: "job-1", id: 5, state: "pending" }));
    expect(isInert(state, pending, T0 + 1)).toBe(false);
    state = step(state, pending, T0 + 1).state;
    expect(isInert(state, pending, T0 + 2)).toBe(true);
    expect(
      isInert(state, reportOn("tested", aCommitStatus({ name: "job-1", id: 6, state: "pending" })), T0 + 2),
    ).toBe(false);
    expect(isInert(state, reportOn("elsewhere", aCommitStatus({ id: 9 })), T0 + 2)).toBe(true);
    // Past the run's testing deadline a tick fails it: nothing is inert then.
    expect(isInert(state, { type: "tick" }, T0 + 24 * 60 * MINUTE)).toBe(false);
    expect(isInert(state, pending, T0 + 24 * 60 * MINUTE)).toBe(false);
  });
});
