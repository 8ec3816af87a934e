// A comparison: the same seeded days played by each policy, with the serial and oracle references.
import type { QueueSettings } from "../queue/index.ts";
import { DEFAULT_QUEUE_SETTINGS } from "../queue/index.ts";
import type { Figures } from "./figures.ts";
import { figuresOf } from "./figures.ts";
import type { Day, SimulationModel } from "./model.ts";
import { generateDay, hasEvidence, withoutEvidence } from "./model.ts";
import type { DayOutcome } from "./outcome.ts";
import type { PolicySpec } from "./policy-spec.ts";
import type { StepFunction } from "./queue-policy.ts";
import { playQueue } from "./queue-policy.ts";
import { playProbableFutures } from "./probable-futures.ts";
import { playOracle, playSerial } from "./references.ts";

export interface PolicyResult {
  readonly label: string;
  readonly reference: boolean;
  /** CI slots: the oracle it is compared with has as many. */
  readonly slots: number;
  readonly figures: Figures;
  /** Merged/h as a share of the oracle's with as many slots. */
  readonly ofOracle: number;
  /** The policy's first day, for the queue-length chart. */
  readonly firstDay: DayOutcome;
  /** Every merge check failure, with the seed of its day. */
  readonly violations: readonly string[];
}

export interface Comparison {
  readonly model: SimulationModel;
  readonly seeds: readonly number[];
  readonly results: readonly PolicyResult[];
  /** A policy runs lanes, so the model's share of PRs impacting ALL matters. */
  readonly lanes: boolean;
}

export interface ComparisonRequest {
  readonly model: SimulationModel;
  readonly policies: readonly PolicySpec[];
  /** The first day's seed; day i has seed + i. */
  readonly seed: number;
  readonly days: number;
  /** The queue core to play; the real `step` unless a test swaps it. */
  readonly step?: StepFunction;
}

function slotsOf(settings: Partial<QueueSettings>): number {
  return settings.concurrency ?? DEFAULT_QUEUE_SETTINGS.concurrency;
}

function played(
  label: string,
  reference: boolean,
  slots: number,
  days: readonly Day[],
  play: (day: Day) => DayOutcome,
): Omit<PolicyResult, "ofOracle"> {
  const outcomes = days.map(play);
  return {
    label,
    reference,
    slots,
    figures: figuresOf(outcomes),
    firstDay: outcomes[0] as DayOutcome,
    violations: outcomes.flatMap((outcome, index) =>
      outcome.violations.map((violation) => `${label}, seed ${days[index]?.seed}: ${violation}`),
    ),
  };
}

/** Plays every policy on the same days; the oracles come first (one per slot count), then serial. */
export function compare(request: ComparisonRequest): Comparison {
  const seeds = Array.from({ length: request.days }, (_, index) => request.seed + index);
  const days = seeds.map((seed) => generateDay(request.model, seed));
  // The references know every outcome in advance (oracle) or know nothing (serial): evidence changes neither.
  const referenceDays = days.map((day) => ({ ...day, model: withoutEvidence(day.model) }));
  const slotCounts = [...new Set([1, ...request.policies.map((policy) => slotsOf(policy.settings))])].sort(
    (a, b) => a - b,
  );
  const oracles = slotCounts.map((slots) =>
    played(`oracle k=${slots}`, true, slots, referenceDays, (day) => playOracle(day, slots)),
  );
  // With evidence in the model every policy is played without it too, so that no figure rests on it alone.
  const evidence = hasEvidence(request.model);
  const policyRows = request.policies.flatMap((policy) =>
    // Another design knows nothing of the evidence the queue takes: it is played once, without it.
    (evidence && policy.futures === undefined ? [false, true] : [false]).map((withEvidence) =>
      played(
        withEvidence ? `${policy.label} +evidence` : policy.label,
        false,
        slotsOf(policy.settings),
        days,
        (day) =>
          policy.futures === undefined
            ? playQueue(
                withEvidence ? day : { ...day, model: withoutEvidence(day.model) },
                policy.settings,
                request.step,
                policy.lanes,
              )
            : playProbableFutures(
                { ...day, model: withoutEvidence(day.model) },
                { slots: slotsOf(policy.settings), rerank: policy.futures.rerank },
              ),
      ),
    ),
  );
  const rows = [...oracles, played("serial", true, 1, referenceDays, playSerial), ...policyRows];
  const oracleRate = (slots: number) =>
    oracles.find((oracle) => oracle.slots === slots)?.figures.mergedPerHour ?? 0;
  return {
    model: request.model,
    seeds,
    lanes: request.policies.some((policy) => policy.lanes !== undefined),
    results: rows.map((row) => {
      const rate = oracleRate(row.slots);
      return { ...row, ofOracle: rate > 0 ? row.figures.mergedPerHour / rate : 0 };
    }),
  };
}
