// `--from-history`: the model's CI durations, failure and flake rates and arrival rate, read from real runs.
import { HOUR_MS, MINUTE_MS } from "./model.ts";

/** What a history says about a team's day. */
export interface HistoryFigures {
  readonly arrivalsPerHour: number;
  /** Every run's duration, minutes. */
  readonly ciDurations: readonly number[];
  /** PRs none of whose runs passed, among all PRs. */
  readonly broken: number;
  /** Failed runs of PRs that also passed (in another run), among all runs of those PRs. */
  readonly flaky: number;
  readonly prs: number;
  readonly runs: number;
}

/** A history file that cannot be read; the message names the file and row. */
export class HistoryError extends Error {}

interface HistoryRun {
  readonly pr: string;
  readonly startedAt: number;
  readonly minutes: number;
  readonly passed: boolean;
  readonly submittedAt: number;
}

type Row = Readonly<Record<string, unknown>>;

/** Rows of a CSV with a header line: plain comma-separated values, no quoted fields. */
function csvRows(text: string, where: string): { row: Row; where: string }[] {
  const lines = text.split(/\r?\n/).map((line, index) => ({ line: line.trim(), number: index + 1 }));
  const content = lines.filter(({ line }) => line !== "");
  const header = content.shift();
  if (header === undefined) throw new HistoryError(`${where} is empty`);
  const names = header.line.split(",").map((name) => name.trim());
  return content.map(({ line, number }) => {
    const values = line.split(",").map((value) => value.trim());
    if (values.length !== names.length) {
      throw new HistoryError(`${where}:${number} has ${values.length} values for ${names.length} columns`);
    }
    return {
      row: Object.fromEntries(names.map((name, index) => [name, values[index]])),
      where: `${where}:${number}`,
    };
  });
}

function jsonRows(text: string, where: string): { row: Row; where: string }[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new HistoryError(`${where} is not valid JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(parsed)) throw new HistoryError(`${where} must hold a JSON array of runs`);
  return parsed.map((row: unknown, index) => {
    if (typeof row !== "object" || row === null)
      throw new HistoryError(`${where}[${index}] is not an object`);
    return { row: row as Row, where: `${where}[${index}]` };
  });
}

function text(row: Row, column: string, where: string): string | undefined {
  const value = row[column];
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string" && typeof value !== "number") {
    throw new HistoryError(`${where}: ${column} must be a string or a number`);
  }
  return String(value);
}

function time(row: Row, column: string, where: string): number | undefined {
  const value = text(row, column, where);
  if (value === undefined) return undefined;
  const at = Date.parse(value);
  if (Number.isNaN(at)) throw new HistoryError(`${where}: ${column} is not an ISO 8601 time: ${value}`);
  return at;
}

function required<T>(value: T | undefined, column: string, where: string): T {
  if (value === undefined) throw new HistoryError(`${where}: ${column} is missing`);
  return value;
}

/** One row; null for a run that neither passed nor failed (cancelled, skipped…). */
function runOf(row: Row, where: string): HistoryRun | null {
  const conclusion = required(text(row, "conclusion", where), "conclusion", where);
  if (conclusion !== "success" && conclusion !== "failure") return null;
  const pr = required(text(row, "pr", where), "pr", where);
  const startedAt = required(time(row, "started_at", where), "started_at", where);
  const finishedAt = time(row, "finished_at", where);
  const durationText = text(row, "duration_minutes", where);
  const minutes =
    finishedAt !== undefined
      ? (finishedAt - startedAt) / MINUTE_MS
      : Number(required(durationText, "finished_at or duration_minutes", where));
  if (!Number.isFinite(minutes) || minutes <= 0) {
    throw new HistoryError(`${where}: the run must last longer than 0 minutes`);
  }
  return {
    pr,
    startedAt,
    minutes,
    passed: conclusion === "success",
    submittedAt: time(row, "submitted_at", where) ?? startedAt,
  };
}

/** Reads a history of CI runs (CSV, or JSON when the file name ends in .json or it starts with `[`). */
export function parseHistory(content: string, fileName: string): HistoryFigures {
  const rows =
    fileName.toLowerCase().endsWith(".json") || content.trimStart().startsWith("[")
      ? jsonRows(content, fileName)
      : csvRows(content, fileName);
  const runs = rows.map(({ row, where }) => runOf(row, where)).filter((run) => run !== null);
  const byPr = new Map<string, HistoryRun[]>();
  for (const run of runs) byPr.set(run.pr, [...(byPr.get(run.pr) ?? []), run]);
  const submissions = [...byPr.values()].map((prRuns) => Math.min(...prRuns.map((run) => run.submittedAt)));
  const spanMs = Math.max(...submissions) - Math.min(...submissions);
  if (byPr.size < 2 || spanMs <= 0) {
    throw new HistoryError(`${fileName} needs runs of at least two PRs submitted at different times`);
  }
  const passingRuns = [...byPr.values()].filter((prRuns) => prRuns.some((run) => run.passed)).flat();
  const neverPassed = [...byPr.values()].filter((prRuns) => prRuns.every((run) => !run.passed)).length;
  return {
    // n submissions span n - 1 gaps.
    arrivalsPerHour: (byPr.size - 1) / (spanMs / HOUR_MS),
    ciDurations: runs.map((run) => run.minutes),
    broken: neverPassed / byPr.size,
    flaky:
      passingRuns.length === 0 ? 0 : passingRuns.filter((run) => !run.passed).length / passingRuns.length,
    prs: byPr.size,
    runs: runs.length,
  };
}
