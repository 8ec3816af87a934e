// Deterministic randomness for the simulator. Every draw is a pure function of its inputs, so a simulated
// day is reproducible from its seed, and two policies that test the same thing get the same luck.

/** A 32-bit finaliser (murmur3's fmix32): spreads every input bit over the whole word. */
export function mix32(value: number): number {
  let h = value | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Hashes a list of 32-bit integers into one word. */
export function hashWords(words: readonly number[]): number {
  let h = 0x9e3779b9;
  for (const word of words) h = mix32(h ^ mix32(word + 0x7f4a7c15));
  return h;
}

/** A number in [0, 1) that depends only on `words`: 53 bits from two independent hashes. */
export function unitOf(words: readonly number[]): number {
  const high = hashWords([...words, 1]) >>> 5; // 27 bits
  const low = hashWords([...words, 2]) >>> 6; // 26 bits
  return (high * 67108864 + low) / 9007199254740992;
}

/** A seeded stream of numbers in [0, 1) (mulberry32), for drawing the day itself. */
export function randomStream(seed: number): () => number {
  let state = mix32(seed) | 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
