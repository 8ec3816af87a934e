// The probable-futures design (Uber's SubmitQueue), played beside the proof planner so that the two designs are
// measured on the same days. It is a reference, not a queue setting: the proof planner was chosen over it
// (docs/queue-policy.md#probable-futures-measured).
//
// Each PR is tested alone, on a guess of what the target will hold when its turn comes: the target and the PRs
// ahead of it, some of them assumed to fail. A guess comes true with the product of the odds of each PR ahead
// landing (or failing, for those it leaves out); the slots go to the guesses most likely to come true. PRs land
// in submission order, each with a passed run whose guess came true, which is then exactly the target plus the PR:
// only a tested commit on the target lands. A PR fails when `rejectAfter` runs on its true base have failed;
// after the first, the others run at once. The odds come from the day's broken and flaky rates, given to it as
// SubmitQueue learns them from history.
//
// `rerank: false` lets every run whose guess may still come true finish; `rerank: true` cancels a run as soon as
// its guess drops out of the best `slots`, the naive form, whose runs are often cancelled before they prove
// anything.
import { Agenda } from "./agenda.ts";
import { type CiRun, SimulatedCi } from "./ci.ts";
import { type ContentKey, contentText, EMPTY_CONTENT, withPr, withoutPr } from "./content.ts";
import type { Day, SimulatedPr } from "./model.ts";
import type { DayOutcome, PrOutcome } from "./outcome.ts";
import { conflictsWithLanded, decide, type Landed, outcome } from "./references.ts";

export interface FuturesOptions {
  readonly slots: number;
  readonly rerank: boolean;
  /** Failed runs on its true base that fail a PR; REJECT_AFTER when absent. */
  readonly rejectAfter?: number;
}

/** Three failed runs keep the good PRs failed by flakes as rare as in the proof planner. */
const REJECT_AFTER = 3;

/** Guesses are made for the PRs this far from the head of the line, each leaving out at most two PRs ahead. */
const HORIZON = 16;

/** A PR in line, with the runs on its true base that failed. */
interface InLine {
  readonly pr: SimulatedPr;
  failures: number;
}

/** A run of one PR on a guess: the PRs ahead of it it holds, beyond what had landed when it started. */
interface Build {
  readonly pr: number;
  readonly key: string;
  readonly holds: ReadonlySet<number>;
  readonly landedAtStart: number;
  readonly branch: string;
  readonly run: CiRun;
}

/** A guess worth a run: what the run would test, and the odds that the guess comes true. */
interface Guess {
  readonly pr: number;
  readonly content: ContentKey;
  readonly key: string;
  readonly broken: boolean;
  readonly holds: readonly number[];
  readonly odds: number;
}

type Due =
  { readonly kind: "arrival"; readonly pr: SimulatedPr } | { readonly kind: "report"; readonly build: Build };

export function playProbableFutures(day: Day, options: FuturesOptions): DayOutcome {
  const { slots, rerank, rejectAfter = REJECT_AFTER } = options;
  const { broken: brokenRate, flaky } = day.model;
  const ci = new SimulatedCi(day);
  const agenda = new Agenda<Due>();
  const line: InLine[] = [];
  const landed: Landed[] = [];
  const landedNumbers = new Set<number>();
  const decided: PrOutcome[] = [];
  let builds: Build[] = [];
  /** Each PR's finished runs: the content they tested, whether they passed, and whether counted as a failure. */
  const finished = new Map<number, { key: string; passes: boolean; counted: boolean }[]>();
  let target = EMPTY_CONTENT;
  let runs = 0;

  /** The odds that a PR in line lands: good, given the failures on its true base (each a flake if it is good). */
  const landingOdds = ({ failures }: InLine) => {
    const good = (1 - brokenRate) * flaky ** failures;
    return good / (good + brokenRate);
  };

  /** The head of the line leaves it. */
  const leaveLine = (fate: PrOutcome["fate"], now: number) => {
    const { pr } = line.shift() as InLine;
    decided.push(decide(pr, fate, now));
    finished.delete(pr.number);
  };

  /** Decides the head of the line as far as the runs reported allow: lands, fails or leaves it waiting. */
  const settle = (now: number) => {
    for (let head = line[0]; head !== undefined; head = line[0]) {
      if (conflictsWithLanded(day, head.pr, landed)) {
        leaveLine("conflict", now);
        continue;
      }
      const trueKey = contentText(withPr(target, head.pr.number));
      const results = (finished.get(head.pr.number) ?? []).filter((result) => result.key === trueKey);
      if (results.some((result) => result.passes)) {
        target = withPr(target, head.pr.number);
        landed.push({ pr: head.pr.number, at: now });
        landedNumbers.add(head.pr.number);
        leaveLine("merged", now);
        continue;
      }
      for (const result of results) {
        if (result.counted) continue;
        result.counted = true;
        head.failures++;
      }
      if (head.failures < rejectAfter) return;
      leaveLine("failed", now);
    }
  };

  const cancel = (build: Build, now: number) => {
    ci.cancel(build.branch, now);
    builds = builds.filter((other) => other !== build);
  };

  /** A run can still land its PR: everything it holds is landed or in line, and it holds everything landed since. */
  const mayComeTrue = (build: Build, inLine: ReadonlySet<number>) =>
    inLine.has(build.pr) &&
    [...build.holds].every((number) => inLine.has(number) || landedNumbers.has(number)) &&
    landed.slice(build.landedAtStart).every((one) => build.holds.has(one.pr));

  /** The guesses worth a run, best first: the head's own runs (as many as it needs at once), then the rest. */
  const guesses = (): Guess[] => {
    const found: Guess[] = [];
    const head = line[0];
    if (head === undefined) return found;
    const content = withPr(target, head.pr.number);
    const copies = head.failures === 0 ? 1 : rejectAfter - head.failures;
    for (let copy = 0; copy < copies; copy++) {
      found.push({
        pr: head.pr.number,
        content,
        key: contentText(content),
        broken: head.pr.broken,
        holds: [],
        odds: 1,
      });
    }
    // For the PR at `index`: what lies ahead of it (the target and every PR in line before it) and its odds.
    let ahead = target;
    let brokenAhead = 0;
    let allLand = 1;
    const odds = line.map(landingOdds);
    for (let index = 1; index < Math.min(line.length, HORIZON); index++) {
      const before = line[index - 1] as InLine;
      ahead = withPr(ahead, before.pr.number);
      brokenAhead += before.pr.broken ? 1 : 0;
      allLand *= odds[index - 1] as number;
      const { pr } = line[index] as InLine;
      const tried = new Set((finished.get(pr.number) ?? []).map((result) => result.key));
      const holdsAll = line.slice(0, index).map((one) => one.pr.number);
      const add = (leftOut: readonly number[]) => {
        let guessed = ahead;
        let brokenHeld = brokenAhead;
        let chance = allLand;
        for (const at of leftOut) {
          const { pr: out } = line[at] as InLine;
          guessed = withoutPr(guessed, out.number);
          brokenHeld -= out.broken ? 1 : 0;
          chance *= (1 - (odds[at] as number)) / (odds[at] as number);
        }
        const tested = withPr(guessed, pr.number);
        const key = contentText(tested);
        if (tried.has(key)) return;
        const holds = holdsAll.filter((_, at) => !leftOut.includes(at));
        found.push({
          pr: pr.number,
          content: tested,
          key,
          broken: pr.broken || brokenHeld > 0,
          holds,
          odds: chance,
        });
      };
      add([]);
      for (let first = 0; first < index; first++) {
        add([first]);
        for (let second = first + 1; second < index; second++) add([first, second]);
      }
    }
    return found.sort((a, b) => b.odds - a.odds);
  };

  const start = (guess: Guess, now: number) => {
    const branch = `futures-${++runs}`;
    const run = ci.start(branch, { sha: branch, content: guess.content, broken: guess.broken }, now);
    const build: Build = {
      pr: guess.pr,
      key: guess.key,
      holds: new Set(guess.holds),
      landedAtStart: landed.length,
      branch,
      run,
    };
    builds.push(build);
    agenda.schedule(run.endsAt, { kind: "report", build });
  };

  /** Cancels the runs that can no longer land (and, reranking, those outside the best guesses), then fills slots. */
  const plan = (now: number) => {
    const inLine = new Set(line.map((one) => one.pr.number));
    for (const build of builds.filter((one) => !mayComeTrue(one, inLine))) cancel(build, now);
    const ranked = guesses();
    const running = new Map<string, Build[]>();
    for (const build of builds) {
      const same = running.get(build.key);
      if (same === undefined) running.set(build.key, [build]);
      else same.push(build);
    }
    const wanted = rerank ? ranked.slice(0, slots) : ranked;
    const kept = new Set<Build>();
    const toStart: Guess[] = [];
    for (const guess of wanted) {
      const build = running.get(guess.key)?.shift();
      if (build !== undefined) kept.add(build);
      else toStart.push(guess);
    }
    if (rerank) for (const build of builds.filter((one) => !kept.has(one))) cancel(build, now);
    for (const guess of toStart) {
      if (builds.length >= slots) break;
      start(guess, now);
    }
  };

  for (const pr of day.prs) agenda.schedule(pr.arrivesAt, { kind: "arrival", pr });
  for (let due = agenda.next(); due !== undefined; due = agenda.next()) {
    const { at, item } = due;
    if (item.kind === "arrival") line.push({ pr: item.pr, failures: 0 });
    else {
      if (!ci.finish(item.build.run)) continue;
      builds = builds.filter((one) => one !== item.build);
      const results = finished.get(item.build.pr) ?? [];
      results.push({ key: item.build.key, passes: item.build.run.passes, counted: false });
      finished.set(item.build.pr, results);
    }
    settle(at);
    plan(at);
  }
  for (const { pr } of line) decided.push({ ...pr, fate: "unfinished", decidedAt: null });
  return outcome(day, decided, ci);
}
