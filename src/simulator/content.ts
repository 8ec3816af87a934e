// What a commit holds, as the simulator needs it: the set of PRs in it (for CI's luck, independent of
// order) and the sequence of PRs in it (for the merge check, which cares about order).
import { hashWords, mix32 } from "./random.ts";

/** A hash of a set of PR numbers, in two independent 32-bit lanes; adding is order-independent. */
export type ContentKey = readonly [number, number];

export const EMPTY_CONTENT: ContentKey = [0, 0];

/** The key as text, to index what was tested by the set of PRs it held. */
export function contentText(key: ContentKey): string {
  return `${key[0]}:${key[1]}`;
}

export function withPr(key: ContentKey, prNumber: number): ContentKey {
  return [(key[0] + mix32(prNumber * 2 + 1)) >>> 0, (key[1] + mix32(prNumber ^ 0x5bd1e995)) >>> 0];
}

/** The key without `prNumber`, which it holds: adding is undone by subtracting. */
export function withoutPr(key: ContentKey, prNumber: number): ContentKey {
  return [(key[0] - mix32(prNumber * 2 + 1)) >>> 0, (key[1] - mix32(prNumber ^ 0x5bd1e995)) >>> 0];
}

export function contentKeyOf(prNumbers: Iterable<number>): ContentKey {
  let key = EMPTY_CONTENT;
  for (const prNumber of prNumbers) key = withPr(key, prNumber);
  return key;
}

/** A hash of a sequence of PR numbers, extended one PR at a time. */
export function withPrInOrder(order: number, prNumber: number): number {
  return hashWords([order, prNumber]);
}
