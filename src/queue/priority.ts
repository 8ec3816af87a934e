/** Named priorities and their values (docs/queue.md#order-and-priority): lower runs first. */
export const PRIORITY_VALUES = { urgent: 0, high: 10, medium: 100, low: 200 } as const;

export type PriorityName = keyof typeof PRIORITY_VALUES;

export const DEFAULT_PRIORITY_NAME: PriorityName = "medium";
export const DEFAULT_PRIORITY_VALUE = PRIORITY_VALUES[DEFAULT_PRIORITY_NAME];
export const MAX_PRIORITY_VALUE = 255;

const NAME_BY_VALUE = new Map<number, PriorityName>(
  Object.entries(PRIORITY_VALUES).map(([name, value]) => [value, name as PriorityName]),
);

/** `priorityName` of the record: the name of the value when it has one, else the number as a string. */
export function priorityNameOf(value: number): string {
  return NAME_BY_VALUE.get(value) ?? String(value);
}

/** An urgent PR skips the line: it moves ahead of PRs already testing (docs/queue.md#order-and-priority). */
export function skipsTheLine(value: number): boolean {
  return value === PRIORITY_VALUES.urgent;
}

/**
 * Reads a priority as users give it: a name in any case, or an integer 0..255 (also as a string of digits).
 * Returns null when it is neither.
 */
export function parsePriority(input: string | number): number | null {
  if (typeof input === "number") {
    return Number.isInteger(input) && input >= 0 && input <= MAX_PRIORITY_VALUE ? input : null;
  }
  const text = input.trim().toLowerCase();
  if (/^\d{1,3}$/.test(text)) return parsePriority(Number(text));
  return Object.hasOwn(PRIORITY_VALUES, text) ? PRIORITY_VALUES[text as PriorityName] : null;
}
