// switchyard simulate: plays simulated days through the real queue core and prints what each policy does
// to throughput, latency and CI cost, next to serial and an oracle. No network, no database.
import { readFileSync, writeFileSync } from "node:fs";
import { type Command, CommanderError } from "commander";
import { svgChart, terminalChart } from "../simulator/chart.ts";
import { HistoryError, parseHistory } from "../simulator/history.ts";
import type { SimulationModel } from "../simulator/model.ts";
import type { PolicyPart, PolicySpec } from "../simulator/policy-spec.ts";
import { parsePolicies, PolicySpecError, policyPartOf, withPart } from "../simulator/policy-spec.ts";
import { describeModel, formatCiSpend, formatComparison } from "../simulator/report.ts";
import { compare, type Comparison } from "../simulator/simulate.ts";
import { CliError, type CliContext } from "./io.ts";
import { parseFraction, parseMinutes, parsePositive, parseWhole } from "./simulate-options.ts";

interface SimulateOptions {
  arrivals: string;
  ci: string;
  jitter: string;
  broken: string;
  flaky: string;
  hours: string;
  conflicts: string;
  impactsAll: string;
  headCiFailed: string;
  knownFlaky: string;
  seed: string;
  seeds: string;
  compare?: string;
  svg?: string;
  fromHistory?: string;
  ciSpend?: boolean;
  [setting: string]: string | boolean | undefined;
}

/** Flags that set the queue (the same names `--compare` takes), and what they take. */
const SETTING_FLAGS: readonly {
  readonly key: string;
  readonly value: string;
  readonly description: string;
  /** Its name in the policy's label, when shorter. */
  readonly short?: string;
}[] = [
  { key: "concurrency", value: "<n>", description: "runs tested at once (k)", short: "k" },
  {
    key: "pending-failure-depth",
    value: "<n>",
    description: "runs behind a failure to wait for (d)",
    short: "d",
  },
  { key: "optimistic", value: "", description: "a run that passes merges the PRs ahead of it" },
  { key: "batch", value: "<size>", description: "test waiting PRs in batches of this size" },
  { key: "batch-wait", value: "<minutes>", description: "longest wait for a batch to fill" },
  { key: "bisection-concurrency", value: "<n>", description: "runs bisecting a failed batch at once" },
  { key: "skip-redundant-tests", value: "", description: "never test a known combination again" },
  {
    key: "confirm-failures",
    value: "",
    description: "test a failed PR once more before failing it",
    short: "confirm",
  },
  {
    key: "adaptive-batching",
    value: "",
    description: "batch size follows the failure rate",
    short: "adaptive",
  },
  { key: "testing-timeout", value: "<minutes>", description: "a run still pending after this fails" },
  { key: "merge-method", value: "<method>", description: "merge_commit (default here), squash or rebase" },
  {
    key: "lanes",
    value: "<n>",
    description: "parallel mode: PRs fall into n independent target groups, CI uploads their targets",
  },
];

/** The flags the history replaces. */
const MODEL_FLAGS = ["arrivals", "ci", "jitter", "broken", "flaky"] as const;

function camel(key: string): string {
  return key.replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase());
}

/** The policy the setting flags describe, labelled as they were written. */
function flaggedPolicy(options: SimulateOptions, leaveOut?: string): PolicySpec {
  let policy: PolicyPart = { settings: {} };
  const parts: string[] = [];
  for (const { key, value, short = key } of SETTING_FLAGS) {
    const given = key === leaveOut ? undefined : options[camel(key)];
    if (given === undefined || given === false) continue;
    const text = value === "" ? undefined : String(given);
    try {
      policy = withPart(policy, policyPartOf(key, text));
    } catch (error) {
      if (error instanceof PolicySpecError) throw new CliError(`--${key} ${error.message}`);
      throw error;
    }
    parts.push(text === undefined ? short : `${short}=${text}`);
  }
  return { label: parts.length === 0 ? "queue defaults" : parts.join(","), ...policy };
}

function readModel(options: SimulateOptions, command: Command): SimulationModel {
  const model: SimulationModel = {
    arrivalsPerHour: parsePositive("--arrivals", options.arrivals),
    ciMinutes: parseMinutes("--ci", options.ci),
    jitter: parseFraction("--jitter", options.jitter, 1, true),
    broken: parseFraction("--broken", options.broken),
    flaky: parseFraction("--flaky", options.flaky, 1, true),
    hours: parsePositive("--hours", options.hours),
    conflicts: parseFraction("--conflicts", options.conflicts),
    ciDurations: null,
    impactsAll: parseFraction("--impacts-all", options.impactsAll),
    headCiFailed: parseFraction("--head-ci-failed", options.headCiFailed),
    knownFlaky: parseFraction("--known-flaky", options.knownFlaky),
  };
  if (options.fromHistory === undefined) return model;
  const given = MODEL_FLAGS.filter((flag) => command.getOptionValueSource(flag) === "cli");
  if (given.length > 0) {
    throw new CliError(
      `--from-history sets ${given.map((flag) => `--${flag}`).join(", ")}: give one or the other`,
    );
  }
  let content: string;
  try {
    content = readFileSync(options.fromHistory, "utf8");
  } catch (error) {
    throw new CliError(`cannot read ${options.fromHistory}: ${(error as Error).message}`);
  }
  try {
    const { arrivalsPerHour, ciDurations, broken, flaky } = parseHistory(content, options.fromHistory);
    const ciMinutes = ciDurations.reduce((sum, minutes) => sum + minutes, 0) / ciDurations.length;
    return { ...model, arrivalsPerHour, ciDurations, broken, flaky, ciMinutes, jitter: 0 };
  } catch (error) {
    if (error instanceof HistoryError) throw new CliError(error.message);
    throw error;
  }
}

/**
 * The policies to play: the flags' policy, or each of --compare on top of it. Lanes alone mean little: the
 * flags' policy with --lanes is played beside the same policy in single mode.
 */
function readPolicies(options: SimulateOptions): PolicySpec[] {
  const flagged = flaggedPolicy(options);
  if (options.compare === undefined) {
    return flagged.lanes === undefined ? [flagged] : [flaggedPolicy(options, "lanes"), flagged];
  }
  try {
    return parsePolicies(options.compare, flagged);
  } catch (error) {
    if (error instanceof PolicySpecError) throw new CliError(`--compare ${error.message}`);
    throw error;
  }
}

export function registerSimulateCommand(program: Command, context: CliContext): void {
  const command = program
    .command("simulate")
    .description(
      "play simulated days through the real queue core and compare policies (no network, no database)",
    )
    .option("--arrivals <per-hour>", "PRs submitted per hour, Poisson arrivals", "10")
    .option("--ci <duration>", "mean CI duration (30m, 1h, 90s)", "30m")
    .option("--jitter <share>", "CI durations are uniform in CI·(1 ± jitter)", "10%")
    .option("--broken <share>", "PRs that are broken: every run containing one fails", "10%")
    .option("--flaky <share>", "runs that fail although nothing in them is broken", "5%")
    .option("--hours <hours>", "length of the window during which PRs arrive", "24")
    .option("--conflicts <share>", "probability that a pair of PRs conflicts", "0")
    .option("--impacts-all <share>", "with lanes: PRs that impact every target (ALL)", "10%")
    .option(
      "--head-ci-failed <share>",
      "evidence: broken PRs whose own CI on their head already failed (rows without evidence are printed too)",
      "0",
    )
    .option(
      "--known-flaky <share>",
      "evidence: flaky failures test health attributes to known-flaky tests (rows without evidence are printed too)",
      "0",
    )
    .option("--seed <n>", "seed of the first simulated day", "1")
    .option("--seeds <n>", "simulated days pooled (seeds seed … seed+n-1)", "1")
    .option("--compare <policies>", 'policies separated by ";", e.g. "k=4;k=8,d=2,optimistic;k=8,batch=4"')
    .option("--svg <file>", "write the queue length over the first day as an SVG picture")
    .option("--ci-spend", "also print where each policy's CI minutes went: passed, failed, flaked, cancelled")
    .option(
      "--from-history <file>",
      "take arrivals, CI durations, failure and flake rates from real runs (CSV or JSON)",
    );
  for (const { key, value, description } of SETTING_FLAGS) {
    command.option(`--${key}${value === "" ? "" : ` ${value}`}`, description);
  }
  command.action((options: SimulateOptions) => {
    const model = readModel(options, command);
    const seed = parseWhole("--seed", options.seed, 0, 2 ** 31 - 1);
    const days = parseWhole("--seeds", options.seeds, 1, 1000);
    const policies = readPolicies(options);
    const comparison = compare({ model, policies, seed, days });
    context.out(`${formatComparison(comparison)}\n`);
    if (options.ciSpend === true) context.out(`\n${formatCiSpend(comparison)}\n`);
    const played = comparison.results.filter((result) => !result.reference);
    if (policies.length === 1 && played[0] !== undefined) {
      const { label, firstDay } = played[0];
      context.out(`\n${terminalChart({ label, points: firstDay.queueLength, endsAt: firstDay.endsAt })}\n`);
    }
    if (options.svg !== undefined) {
      const series = comparison.results
        .filter((result) => result.label !== "serial")
        .map(({ label, firstDay }) => ({ label, points: firstDay.queueLength, endsAt: firstDay.endsAt }));
      const title = `Queue length: ${describeModel(model, comparison.seeds.slice(0, 1))}`;
      try {
        writeFileSync(options.svg, svgChart(series, title));
      } catch (error) {
        throw new CliError(`cannot write ${options.svg}: ${(error as Error).message}`);
      }
    }
    failOnUntestedMerges(comparison, context);
  });
}

/** The merge check: a target move no passed run vouches for is printed and fails the command. */
export function failOnUntestedMerges(comparison: Comparison, context: CliContext): void {
  const violations = comparison.results.flatMap((result) => result.violations);
  if (violations.length === 0) return;
  const lines = violations.map((violation) => `  ${violation}\n`).join("");
  context.err(`The target moved to commits no passed run tested:\n${lines}`);
  throw new CommanderError(1, "switchyard.simulate.untested_merge", "");
}
