// The values `switchyard simulate` takes: durations, fractions, counts. Each parser names the flag it reads
// in its error, so a mistyped flag says what is wrong with it.
import { CliError } from "./io.ts";

const DURATION = /^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?(?:(\d+(?:\.\d+)?)s)?$/;

/** Minutes from `30m`, `1h`, `1h30m`, `90s`, or a bare number of minutes. */
export function parseMinutes(flag: string, value: string): number {
  const trimmed = value.trim();
  let minutes = Number.NaN;
  if (/^\d+(\.\d+)?$/.test(trimmed)) minutes = Number(trimmed);
  else {
    const match = DURATION.exec(trimmed);
    if (match !== null && trimmed !== "") {
      const [, hours = "0", mins = "0", seconds = "0"] = match;
      minutes = Number(hours) * 60 + Number(mins) + Number(seconds) / 60;
    }
  }
  if (!(minutes > 0))
    throw new CliError(`${flag} takes a duration such as 30m, 1h30m or 90s, got "${value}"`);
  return minutes;
}

/** A fraction from `10%` or `0.1`, within [0, max] (or [0, max) when `below` is set). */
export function parseFraction(flag: string, value: string, max = 1, below = false): number {
  const trimmed = value.trim();
  const percent = trimmed.endsWith("%");
  const number = /^\d+(\.\d+)?%?$/.test(trimmed) ? Number(trimmed.replace("%", "")) : Number.NaN;
  const fraction = percent ? number / 100 : number;
  if (Number.isNaN(fraction) || fraction > max || (below && fraction === max)) {
    const bound = below ? `below ${max * 100}%` : `at most ${max * 100}%`;
    throw new CliError(`${flag} takes a share such as 10% or 0.1, ${bound}, got "${value}"`);
  }
  return fraction;
}

export function parsePositive(flag: string, value: string): number {
  const number = /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!(number > 0)) throw new CliError(`${flag} takes a number greater than 0, got "${value}"`);
  return number;
}

export function parseWhole(flag: string, value: string, min: number, max: number): number {
  const number = /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < min || number > max) {
    throw new CliError(`${flag} takes a whole number from ${min} to ${max}, got "${value}"`);
  }
  return number;
}
