// Plays a simulated day through the real queue core: `step` decides, the simulated repository and CI
// answer its commands, and a simulated clock moves from one thing due to the next.
import type { QueueEvent, QueueSettings, QueueState, StepResult } from "../queue/index.ts";
import { compact, DEFAULT_QUEUE_SETTINGS, initialQueueState, nextDeadline, step } from "../queue/index.ts";
import { Agenda } from "./agenda.ts";
import type { CiRun } from "./ci.ts";
import { SimulatedCi } from "./ci.ts";
import type { SimulatedWorld } from "./command-answers.ts";
import { CI_STATUS, ciReport, interpret } from "./command-answers.ts";
import type { Day, SimulatedPr } from "./model.ts";
import { HOUR_MS, headCiOf, impactedTargetsOf } from "./model.ts";
import type { DayOutcome, PrFate, PrOutcome } from "./outcome.ts";
import { endOfDay, queueLengthOf } from "./outcome.ts";
import { SimulatedRepository } from "./repository.ts";

export type StepFunction = (state: QueueState, event: QueueEvent, now: number) => StepResult;

type Due =
  | { readonly kind: "arrival"; readonly pr: SimulatedPr }
  | { readonly kind: "report"; readonly run: CiRun }
  | { readonly kind: "tick" };

/** A day that has not drained this long after its window is stuck: the rest is reported unfinished. */
const DRAIN_LIMIT_MS = 30 * 24 * HOUR_MS;

/** The queue's settings in the simulator: what the user chose, on a queue requiring the simulated CI. */
export function simulatedSettings(settings: Partial<QueueSettings>): QueueSettings {
  return {
    ...DEFAULT_QUEUE_SETTINGS,
    // Merges move the target to the tested commit itself, so the merge check compares commits exactly.
    mergeMethod: "merge_commit",
    requiredStatuses: [CI_STATUS],
    // Notifications change nothing in the simulation; skipping them keeps a day fast.
    commentsEnabled: false,
    statusCheckEnabled: false,
    ...settings,
  };
}

function fateOf(state: QueueState, prNumber: number): PrFate {
  const pr = state.prs[prNumber];
  if (pr === undefined) return "unfinished";
  switch (pr.state) {
    case "merged":
      return "merged";
    case "failed":
      return pr.stateReason === "merge_conflict" ? "conflict" : "failed";
    case "cancelled":
      return "cancelled";
    default:
      return "unfinished";
  }
}

/** `lanes`: the PRs' target groups (see `PolicySpec.lanes`); the queue then runs in parallel mode. */
export function playQueue(
  day: Day,
  settings: Partial<QueueSettings>,
  stepFunction: StepFunction = step,
  lanes?: number,
): DayOutcome {
  const repo = new SimulatedRepository(day, lanes);
  const ci = new SimulatedCi(day);
  const agenda = new Agenda<Due>();
  const world: SimulatedWorld = {
    repo,
    ci,
    scheduleReport: (run) => agenda.schedule(run.endsAt, { kind: "report", run }),
  };
  let state = initialQueueState({
    queueId: "sim",
    targetBranch: "main",
    targetHeadSha: repo.target.sha,
    testBranchPrefix: "sim/",
    settings: simulatedSettings(lanes === undefined ? settings : { ...settings, mode: "parallel" }),
  });
  const byNumber = new Map(day.prs.map((pr) => [pr.number, pr]));
  const decided = new Map<number, PrOutcome>();
  let reports = 0;
  let tickAt: number | null = null;
  let compactedAt = 0;

  const deliver = (first: QueueEvent, now: number) => {
    const pending: QueueEvent[] = [first];
    for (let event = pending.shift(); event !== undefined; event = pending.shift()) {
      const before = state;
      const result = stepFunction(state, event, now);
      state = result.state;
      for (const command of result.commands) pending.push(...interpret(world, command, now));
      if (state.line === before.line) continue;
      const still = new Set(state.line);
      for (const prNumber of before.line) {
        const pr = byNumber.get(prNumber);
        if (still.has(prNumber) || pr === undefined) continue;
        decided.set(prNumber, { ...pr, fate: fateOf(state, prNumber), decidedAt: now });
      }
    }
    const deadline = nextDeadline(state);
    if (deadline !== null && (tickAt === null || deadline < tickAt)) {
      tickAt = deadline;
      agenda.schedule(deadline, { kind: "tick" });
    }
    // As production does: finished PRs and runs leave the state, so a step stays cheap all day.
    if (now - compactedAt >= HOUR_MS) {
      state = compact(state, now);
      compactedAt = now;
    }
  };

  for (const pr of day.prs) agenda.schedule(pr.arrivesAt, { kind: "arrival", pr });
  const limit = day.model.hours * HOUR_MS + DRAIN_LIMIT_MS;
  for (let due = agenda.next(); due !== undefined && due.at <= limit; due = agenda.next()) {
    const { at, item } = due;
    if (item.kind === "arrival") {
      deliver(submission(item.pr), at);
      // Its own CI on its head, when the model gives that evidence.
      const headCi = headCiOf(day, item.pr);
      if (headCi !== null) deliver(headChecks(item.pr, headCi), at);
      // As CI would, once the PR is submitted: its targets for its head (docs/queue.md#parallel-lanes).
      if (lanes !== undefined) deliver(targetsUpload(day, item.pr, lanes), at);
    } else if (item.kind === "report") {
      if (!ci.finish(item.run)) continue;
      if (item.run.passes) repo.recordPass(item.run.sha);
      deliver(ciReport(item.run, ++reports), at);
    } else {
      if (tickAt === at) tickAt = null;
      deliver({ type: "tick" }, at);
    }
  }

  const prs = day.prs.map(
    (pr): PrOutcome => decided.get(pr.number) ?? { ...pr, fate: "unfinished", decidedAt: null },
  );
  return {
    prs,
    ciRuns: ci.runs,
    ciMinutes: ci.minutes(),
    queueLength: queueLengthOf(prs),
    violations: repo.violations,
    endsAt: endOfDay(day.model.hours * HOUR_MS, prs),
  };
}

function targetsUpload(day: Day, pr: SimulatedPr, lanes: number): QueueEvent {
  return {
    type: "impacted_targets_set",
    prNumber: pr.number,
    headSha: headShaOf(pr),
    targets: impactedTargetsOf(day, pr.number, lanes),
  };
}

function headChecks(pr: SimulatedPr, outcome: "success" | "failure"): QueueEvent {
  return { type: "pr_head_checks_observed", prNumber: pr.number, headSha: headShaOf(pr), outcome };
}

function headShaOf(pr: SimulatedPr): string {
  return `head-${pr.number}`;
}

function submission(pr: SimulatedPr): QueueEvent {
  return {
    type: "pr_submitted",
    submissionId: `sim-${pr.number}`,
    pr: {
      number: pr.number,
      title: `Change ${pr.number}`,
      headSha: headShaOf(pr),
      baseBranch: "main",
      author: "simulated",
      mergeability: "mergeable",
    },
    priority: null,
    noBatch: false,
  };
}
