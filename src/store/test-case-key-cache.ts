import type { Kysely } from "kysely";
import type { Database } from "./schema.ts";

const HOUR_MS = 3600 * 1000;
/** Ids a cache holds; its tables take 64 bytes per id. */
const KEY_CACHE_CAPACITY = 250_000;

// The value of each hexadecimal digit's character code.
const HEX_VALUES = new Int8Array(128);
for (const [index, digit] of [..."0123456789abcdef"].entries()) HEX_VALUES[digit.charCodeAt(0)] = index;

/** The number the hexadecimal digits of `text` from `start` to `end` (at most 8) write, as a 32-bit integer. */
function hexWord(text: string, start: number, end: number): number {
  let word = 0;
  for (let index = start; index < end; index++) {
    word = (word << 4) | (HEX_VALUES[text.charCodeAt(index)] as number);
  }
  return word;
}

/**
 * The four 32-bit words of a UUID's 32 hexadecimal digits (8-4-4-4-12: dashes at 8, 13, 18 and 23), written into
 * `words`: every test case of an upload is looked up, and an array per look-up was garbage to collect.
 */
function readIdWords(id: string, words: Int32Array): void {
  words[0] = hexWord(id, 0, 8);
  words[1] = (hexWord(id, 9, 13) << 16) | hexWord(id, 14, 18);
  words[2] = (hexWord(id, 19, 23) << 16) | hexWord(id, 24, 28);
  words[3] = hexWord(id, 28, 36);
}

/**
 * Keys of test cases seen lately, by id, kept by this process, so that the uploads of a known suite read no key:
 * with a large suite, those look-ups would cost as much as storing the results. A key never changes while its test
 * exists, and a test is deleted only once all its results are purged, a day past the retention: the cache starts
 * over every hour, and learns only from uploads whose results are dated within the last day, so no entry outlives
 * its test. An upload that fails takes back the keys it handed out, so it empties the cache.
 *
 * Every test case of an upload is looked up, so the cache is a hash table in typed arrays rather than a Map of
 * strings: such a Map kept every id alive for the garbage collector to trace and move, and its look-ups missed the
 * processor's caches; it took 0.3 s of the first upload of 150,000 tests. An id (a UUID, as testCaseId writes it)
 * is held as its 128 bits and placed by its first 32, which are already a hash; an id whose slot is taken goes to
 * the next free one.
 */
export class TestCaseKeyCache {
  private readonly capacity: number;
  private readonly mask: number;
  /** Slot i: the id's four 32-bit words at 4i to 4i + 3. */
  private readonly words: Int32Array;
  /** Slot i: the id's key; 0 marks a free slot (keys start at 1). */
  private readonly keys: Float64Array;
  /** The ids held, four words each, in the order they were learnt: a ring starting at `oldest`. */
  private readonly learnt: Int32Array;
  private oldest = 0;
  private size = 0;
  private since = Number.NEGATIVE_INFINITY;
  /** The words of the id being looked up. */
  private readonly id = new Int32Array(4);

  constructor(capacity = KEY_CACHE_CAPACITY) {
    this.capacity = capacity;
    // At most half full, so that the slots an id is looked for in stay few.
    let slots = 2;
    while (slots < 2 * capacity) slots *= 2;
    this.mask = slots - 1;
    this.words = new Int32Array(4 * slots);
    this.keys = new Float64Array(slots);
    this.learnt = new Int32Array(4 * capacity);
  }

  /** Called as an upload starts: empties the cache once an hour. */
  renew(now: number): void {
    if (now - this.since < HOUR_MS) return;
    this.forget();
    this.since = now;
  }

  get(id: string): number | undefined {
    readIdWords(id, this.id);
    const slot = this.findId();
    return slot < 0 ? undefined : this.keys[slot];
  }

  /** When full, the id learnt first goes. */
  remember(id: string, key: number): void {
    readIdWords(id, this.id);
    if (this.findId() >= 0) return;
    if (this.size === this.capacity) this.evictOldest();
    const slot = -1 - this.findId();
    this.words.set(this.id, 4 * slot);
    this.keys[slot] = key;
    this.learnt.set(this.id, 4 * ((this.oldest + this.size) % this.capacity));
    this.size++;
  }

  forget(): void {
    this.keys.fill(0);
    this.oldest = 0;
    this.size = 0;
  }

  /** {@link find} for the id in `this.id`. */
  private findId(): number {
    const { id } = this;
    return this.find(id[0] as number, id[1] as number, id[2] as number, id[3] as number);
  }

  /** The slot holding the id; else -1 - the free slot where the look-up ended. */
  private find(a: number, b: number, c: number, d: number): number {
    const { words, keys, mask } = this;
    for (let slot = a & mask; ; slot = (slot + 1) & mask) {
      if (keys[slot] === 0) return -1 - slot;
      const at = 4 * slot;
      if (words[at] === a && words[at + 1] === b && words[at + 2] === c && words[at + 3] === d) return slot;
    }
  }

  private evictOldest(): void {
    const { words, keys, mask, learnt } = this;
    const at = 4 * this.oldest;
    let free = this.find(
      learnt[at] as number,
      learnt[at + 1] as number,
      learnt[at + 2] as number,
      learnt[at + 3] as number,
    );
    this.oldest = (this.oldest + 1) % this.capacity;
    this.size--;
    // Each id that follows without a free slot between moves back into the freed slot unless its own slot lies
    // after the freed one (cyclically): so every id stays reachable from its own slot without crossing a free one.
    for (let slot = (free + 1) & mask; keys[slot] !== 0; slot = (slot + 1) & mask) {
      const home = (words[4 * slot] as number) & mask;
      if (((slot - home) & mask) < ((slot - free) & mask)) continue;
      words.copyWithin(4 * free, 4 * slot, 4 * slot + 4);
      keys[free] = keys[slot] as number;
      free = slot;
    }
    keys[free] = 0;
  }
}

const keyCaches = new WeakMap<Kysely<Database>, TestCaseKeyCache>();

/** The key cache of a database. */
export function testCaseKeyCache(db: Kysely<Database>): TestCaseKeyCache {
  let cache = keyCaches.get(db);
  if (cache === undefined) keyCaches.set(db, (cache = new TestCaseKeyCache()));
  return cache;
}
