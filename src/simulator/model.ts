// The model of a team's day that the simulator plays: who submits what when, and how CI behaves.
import { randomStream, unitOf } from "./random.ts";

export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;

export interface SimulationModel {
  /** Mean PR submissions per hour during the window (Poisson arrivals). */
  readonly arrivalsPerHour: number;
  /** Mean CI duration of one run, minutes. */
  readonly ciMinutes: number;
  /** Durations are uniform in ciMinutes·(1 ± jitter); jitter in [0, 1). */
  readonly jitter: number;
  /** Probability that a PR is broken: every run containing it fails. */
  readonly broken: number;
  /** Probability that one run fails although nothing in it is broken. */
  readonly flaky: number;
  /** Length of the window during which PRs arrive, hours. */
  readonly hours: number;
  /** Probability that a given pair of PRs conflicts (the later one does not merge on top of the other). */
  readonly conflicts: number;
  /** Observed CI durations (minutes) to draw from instead of the uniform law (`--from-history`). */
  readonly ciDurations: readonly number[] | null;
  /** In a policy with lanes: probability that a PR impacts every target (a build file, a shared library). */
  readonly impactsAll: number;
  /** Evidence: the share of broken PRs whose own CI on their head already failed (0: the queue is told nothing). */
  readonly headCiFailed: number;
  /** Evidence: the share of flaky failures whose failing tests test health knows as flaky (0: none). */
  readonly knownFlaky: number;
}

/** The same model with no evidence at all: the queue learns from its runs' results only. */
export function withoutEvidence(model: SimulationModel): SimulationModel {
  return { ...model, headCiFailed: 0, knownFlaky: 0 };
}

export function hasEvidence(model: SimulationModel): boolean {
  return model.headCiFailed > 0 || model.knownFlaky > 0;
}

/**
 * What the PR's own CI said on its head, when the model gives evidence: a broken PR's failed with the share
 * `headCiFailed`, a good PR's only by a flake. A pure function of the seed and the PR. Null without evidence.
 */
export function headCiOf(day: Day, pr: SimulatedPr): "success" | "failure" | null {
  const { headCiFailed, flaky } = day.model;
  if (headCiFailed <= 0) return null;
  const u = unitOf([day.seed, 0x4ead, pr.number]);
  return u < (pr.broken ? headCiFailed : flaky) ? "failure" : "success";
}

export interface SimulatedPr {
  readonly number: number;
  /** Milliseconds since the start of the day. */
  readonly arrivesAt: number;
  readonly broken: boolean;
}

/** One simulated day: the PRs and when they arrive, the same for every policy played on it. */
export interface Day {
  readonly seed: number;
  readonly model: SimulationModel;
  readonly prs: readonly SimulatedPr[];
}

/** Poisson arrivals over the window (exponential gaps), each PR broken with probability `broken`. */
export function generateDay(model: SimulationModel, seed: number): Day {
  const random = randomStream(seed);
  const prs: SimulatedPr[] = [];
  const windowMs = model.hours * HOUR_MS;
  if (model.arrivalsPerHour <= 0) return { seed, model, prs };
  const meanGapMs = HOUR_MS / model.arrivalsPerHour;
  for (
    let at = -Math.log(1 - random()) * meanGapMs;
    at < windowMs;
    at += -Math.log(1 - random()) * meanGapMs
  ) {
    prs.push({ number: prs.length + 1, arrivesAt: Math.round(at), broken: random() < model.broken });
  }
  return { seed, model, prs };
}

/** Whether PRs `a` and `b` conflict: a pure function of the seed and the pair. */
export function pairConflicts(day: Day, a: number, b: number): boolean {
  if (day.model.conflicts <= 0) return false;
  return unitOf([day.seed, 0xc0f1, Math.min(a, b), Math.max(a, b)]) < day.model.conflicts;
}

/**
 * The impacted targets CI uploads for a PR when the queue runs `lanes` independent target groups: "ALL", or
 * the one target of its group. A pure function of the seed and the PR, drawn apart from the day's stream, so
 * every policy plays the same PRs and a PR keeps its group whatever the number of lanes it is drawn into.
 * CI needs no other rule: a run fails when its commit holds a broken PR, and a lane's run holds only the PRs
 * whose targets its tests cover (a run of single mode tests every target).
 */
export function impactedTargetsOf(day: Day, prNumber: number, lanes: number): readonly string[] | "ALL" {
  if (unitOf([day.seed, 0xa11, prNumber]) < day.model.impactsAll) return "ALL";
  return [`//group-${Math.floor(unitOf([day.seed, 0x1a7e, prNumber]) * lanes) + 1}`];
}

/** What CI does with one run: how long it takes and whether it fails although nothing in it is broken. */
export interface CiDraw {
  readonly durationMs: number;
  readonly flaky: boolean;
  /** A flake whose failing tests test health knows as flaky (`knownFlaky`). */
  readonly knownFlake: boolean;
}

/**
 * The luck of one CI run: a pure function of (seed, the set of PRs in the tested commit, attempt), so two
 * policies that test the same thing get the same duration and the same flake.
 */
export function drawCi(day: Day, contentKey: readonly [number, number], attempt: number): CiDraw {
  const words = [day.seed, contentKey[0], contentKey[1], attempt];
  const { ciMinutes, jitter, ciDurations, flaky } = day.model;
  const u = unitOf([...words, 0xd0]);
  const minutes =
    ciDurations !== null && ciDurations.length > 0
      ? (ciDurations[Math.floor(u * ciDurations.length)] as number)
      : ciMinutes * (1 - jitter + 2 * jitter * u);
  const flake = unitOf([...words, 0xf1]) < flaky;
  return {
    durationMs: Math.round(minutes * MINUTE_MS),
    flaky: flake,
    knownFlake: flake && unitOf([...words, 0xe71d]) < day.model.knownFlaky,
  };
}
