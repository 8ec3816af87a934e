// The two reference policies every comparison shows: serial (one PR at a time, the slowest sane queue) and
// the oracle (knows every outcome in advance: the upper bound for a number of CI slots).
import { Agenda } from "./agenda.ts";
import { SimulatedCi } from "./ci.ts";
import type { ContentKey } from "./content.ts";
import { EMPTY_CONTENT, withPr } from "./content.ts";
import type { Day, SimulatedPr } from "./model.ts";
import { HOUR_MS, pairConflicts } from "./model.ts";
import type { DayOutcome, PrFate, PrOutcome } from "./outcome.ts";
import { endOfDay, queueLengthOf } from "./outcome.ts";

export interface Landed {
  readonly pr: number;
  readonly at: number;
}

/**
 * Whether `pr` conflicts with a PR that lands after it was opened (it was written on top of everything
 * landed before). `landed` is in landing order, so the scan stops at the first PR landed before it opened.
 */
export function conflictsWithLanded(day: Day, pr: SimulatedPr, landed: readonly Landed[]): boolean {
  for (let index = landed.length - 1; index >= 0; index--) {
    const other = landed[index] as Landed;
    if (other.at <= pr.arrivesAt) return false;
    if (pairConflicts(day, other.pr, pr.number)) return true;
  }
  return false;
}

export function outcome(day: Day, decided: readonly PrOutcome[], ci: SimulatedCi): DayOutcome {
  const prs = [...decided].sort((a, b) => a.number - b.number);
  return {
    prs,
    ciRuns: ci.runs,
    ciMinutes: ci.minutes(),
    queueLength: queueLengthOf(prs),
    violations: [],
    endsAt: endOfDay(day.model.hours * HOUR_MS, prs),
  };
}

export function decide(pr: SimulatedPr, fate: PrFate, at: number): PrOutcome {
  return { ...pr, fate, decidedAt: at };
}

/**
 * One PR at a time, in arrival order, tested on the target: it merges when its run passes and is
 * rejected when it fails (broken or flaky) or does not merge cleanly.
 */
export function playSerial(day: Day): DayOutcome {
  const ci = new SimulatedCi(day);
  const landed: Landed[] = [];
  const decided: PrOutcome[] = [];
  let content: ContentKey = EMPTY_CONTENT;
  let now = 0;
  for (const pr of day.prs) {
    now = Math.max(now, pr.arrivesAt);
    if (conflictsWithLanded(day, pr, landed)) {
      decided.push(decide(pr, "conflict", now));
      continue;
    }
    const tested = withPr(content, pr.number);
    const branch = `serial-${pr.number}`;
    const run = ci.start(branch, { sha: branch, content: tested, broken: pr.broken }, now);
    ci.finish(run);
    now = run.endsAt;
    if (run.passes) {
      content = tested;
      landed.push({ pr: pr.number, at: now });
    }
    decided.push(decide(pr, run.passes ? "merged" : "failed", now));
  }
  return outcome(day, decided, ci);
}

type OracleDue = { readonly kind: "arrival"; readonly pr: SimulatedPr } | { readonly kind: "slot_free" };

/**
 * Knows every outcome in advance: rejects broken PRs (and PRs that would conflict) untested, never sees a
 * flake, and whenever one of its `slots` is free tests every good PR waiting as one batch on top of the
 * batches in flight. Batches merge in order, each when its run and every batch ahead have finished.
 */
export function playOracle(day: Day, slots: number): DayOutcome {
  const ci = new SimulatedCi(day);
  const agenda = new Agenda<OracleDue>();
  const started: Landed[] = [];
  const decided: PrOutcome[] = [];
  let waiting: SimulatedPr[] = [];
  let busy = 0;
  let content: ContentKey = EMPTY_CONTENT;
  let lastMergeAt = 0;
  let batches = 0;

  const startBatches = (now: number) => {
    while (busy < slots && waiting.length > 0) {
      const batch: SimulatedPr[] = [];
      for (const pr of waiting) {
        if (conflictsWithLanded(day, pr, started)) decided.push(decide(pr, "conflict", now));
        else {
          batch.push(pr);
          content = withPr(content, pr.number);
          // Merged after every PR in flight: they count as landing after it was opened.
          started.push({ pr: pr.number, at: Number.POSITIVE_INFINITY });
        }
      }
      waiting = [];
      if (batch.length === 0) return;
      const branch = `oracle-${++batches}`;
      const run = ci.start(branch, { sha: branch, content, broken: false }, now);
      ci.finish(run);
      lastMergeAt = Math.max(lastMergeAt, run.endsAt);
      for (let index = started.length - batch.length; index < started.length; index++) {
        started[index] = { pr: (started[index] as Landed).pr, at: lastMergeAt };
      }
      for (const pr of batch) decided.push(decide(pr, "merged", lastMergeAt));
      busy++;
      agenda.schedule(run.endsAt, { kind: "slot_free" });
    }
  };

  for (const pr of day.prs) agenda.schedule(pr.arrivesAt, { kind: "arrival", pr });
  for (let due = agenda.next(); due !== undefined; due = agenda.next()) {
    const { at, item } = due;
    if (item.kind === "slot_free") busy--;
    else if (item.pr.broken) decided.push(decide(item.pr, "failed", at));
    else waiting.push(item.pr);
    startBatches(at);
  }
  return outcome(day, decided, ci);
}
