// The comparison as the command prints it: one line describing the day, one row per policy.
import type { CiSpend } from "./ci-spend.ts";
import type { Figures } from "./figures.ts";
import { hasEvidence, type SimulationModel } from "./model.ts";
import type { Comparison, PolicyResult } from "./simulate.ts";

/** A model parameter as the user would write it: 10%, 2.5%. */
function percent(fraction: number): string {
  return `${Math.round(fraction * 1000) / 10}%`;
}

export function describeModel(model: SimulationModel, seeds: readonly number[], lanes = false): string {
  const ci =
    model.ciDurations !== null
      ? `CI durations from history (${model.ciDurations.length} runs, mean ${(model.ciDurations.reduce((a, b) => a + b, 0) / model.ciDurations.length).toFixed(1)} min)`
      : `CI ${model.ciMinutes} min ±${percent(model.jitter)}`;
  const conflicts = model.conflicts > 0 ? `, ${percent(model.conflicts)} of pairs conflict` : "";
  const all = lanes ? `, ${percent(model.impactsAll)} impact ALL` : "";
  const evidence = hasEvidence(model)
    ? `; evidence (+evidence rows): ${percent(model.headCiFailed)} of broken PRs' own CI failed, ${percent(model.knownFlaky)} of flakes on known-flaky tests`
    : "";
  const days =
    seeds.length === 1
      ? `seed ${seeds[0]}`
      : `${seeds.length} days pooled (seeds ${seeds[0]}–${seeds.at(-1)})`;
  return `${model.hours} h at ${Number(model.arrivalsPerHour.toFixed(2))} PRs/h, ${ci}, ${percent(model.broken)} broken, ${percent(model.flaky)} flaky${conflicts}${all}${evidence}; ${days}`;
}

interface Column {
  readonly title: string;
  readonly cell: (result: PolicyResult) => string;
}

function optional(value: number | null, digits: number): string {
  return value === null ? "–" : value.toFixed(digits);
}

function columns(comparison: Comparison): Column[] {
  const figures = (pick: (figures: Figures) => string) => (result: PolicyResult) => pick(result.figures);
  const any = (pick: (figures: Figures) => number) =>
    comparison.results.some((result) => pick(result.figures) > 0);
  return [
    { title: "policy", cell: (result) => result.label },
    { title: "merged/h", cell: figures((f) => f.mergedPerHour.toFixed(1)) },
    { title: "% oracle", cell: (result) => `${(result.ofOracle * 100).toFixed(1)}%` },
    { title: "p50 min", cell: figures((f) => optional(f.timeToMergeP50, 0)) },
    { title: "p95 min", cell: figures((f) => optional(f.timeToMergeP95, 0)) },
    { title: "CI runs/merged", cell: figures((f) => optional(f.ciRunsPerMerged, 2)) },
    { title: "CI min/merged", cell: figures((f) => optional(f.ciMinutesPerMerged, 1)) },
    { title: "innocent rejected/day", cell: figures((f) => (f.innocentRejected / f.days).toFixed(1)) },
    { title: "broken merged", cell: figures((f) => String(f.brokenMerged)) },
    ...(comparison.model.conflicts > 0
      ? [{ title: "conflicts/day", cell: figures((f) => (f.conflicts / f.days).toFixed(1)) }]
      : []),
    ...(any((f) => f.unfinished)
      ? [{ title: "unfinished", cell: figures((f) => String(f.unfinished)) }]
      : []),
    { title: "untested merges", cell: figures((f) => String(f.violations)) },
  ];
}

/** Where each policy's CI minutes went, per merged PR (`--ci-spend`). */
function spendColumns(): Column[] {
  const spend = (pick: (spend: CiSpend) => number | null, digits: number) => (result: PolicyResult) =>
    optional(pick(result.figures.ciSpend), digits);
  return [
    { title: "CI min/merged in runs that:", cell: (result) => result.label },
    { title: "passed", cell: spend((s) => s.passed, 1) },
    { title: "failed on a broken PR", cell: spend((s) => s.failedOnBroken, 1) },
    { title: "flaked", cell: spend((s) => s.flaked, 1) },
    { title: "were cancelled", cell: spend((s) => s.cancelled, 1) },
    { title: "failed runs per broken PR", cell: spend((s) => s.failedRunsPerBrokenPr, 2) },
  ];
}

/**
 * The `--ci-spend` table. The references are left out: the oracle merges whatever its CI draws (it never sees a
 * flake), and serial fails every PR its one run fails.
 */
export function formatCiSpend(comparison: Comparison): string {
  return aligned(
    spendColumns(),
    comparison.results.filter((result) => !result.reference),
  );
}

/** Rows under their columns' titles: the first column left, the others right. */
function aligned(table: readonly Column[], results: readonly PolicyResult[]): string {
  const rows = [
    table.map((column) => column.title),
    ...results.map((result) => table.map((column) => column.cell(result))),
  ];
  const widths = table.map((_, index) => Math.max(...rows.map((row) => (row[index] as string).length)));
  const lines = rows.map((row) =>
    row
      .map((cell, index) =>
        index === 0 ? cell.padEnd(widths[index] as number) : cell.padStart(widths[index] as number),
      )
      .join("  "),
  );
  return lines.join("\n");
}

/** The table, columns aligned: the policy name left, the figures right. */
export function formatComparison(comparison: Comparison): string {
  const table = aligned(columns(comparison), comparison.results);
  return `${describeModel(comparison.model, comparison.seeds, comparison.lanes)}\n${table}`;
}
