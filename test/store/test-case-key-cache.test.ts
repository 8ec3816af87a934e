import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { testCaseId } from "../../src/test-health/index.ts";
import { TestCaseKeyCache } from "../../src/store/test-case-key-cache.ts";

const HOUR = 3600 * 1000;
const repo = { host: "github.com", owner: "acme", name: "widgets" };
const idOf = (n: number) => testCaseId(repo, { name: `test ${n}` });

// Ids that share their first 32 bits (the slot they are placed by), so that they probe past each other.
const colliding = (n: number) => `0123abcd-0000-5000-8000-${n.toString(16).padStart(12, "0")}`;

describe("the test case key cache", () => {
  it("gives back the key of each id it learnt, and nothing for others", () => {
    const cache = new TestCaseKeyCache();
    for (let n = 0; n < 1000; n++) cache.remember(idOf(n), n + 1);
    for (let n = 0; n < 1000; n++) expect(cache.get(idOf(n))).toBe(n + 1);
    expect(cache.get(idOf(1000))).toBeUndefined();
  });

  it("tells apart ids placed in the same slot", () => {
    const cache = new TestCaseKeyCache(8);
    for (let n = 0; n < 6; n++) cache.remember(colliding(n), n + 1);
    for (let n = 0; n < 6; n++) expect(cache.get(colliding(n))).toBe(n + 1);
    expect(cache.get(colliding(6))).toBeUndefined();
  });

  it("when full, forgets the id learnt first; learning an id again does not refresh it", () => {
    const cache = new TestCaseKeyCache(3);
    for (const n of [1, 2, 3]) cache.remember(idOf(n), n);
    cache.remember(idOf(1), 1);
    cache.remember(idOf(4), 4);
    expect([1, 2, 3, 4].map((n) => cache.get(idOf(n)))).toEqual([undefined, 2, 3, 4]);
  });

  it("empties on forget, and on renew once an hour", () => {
    const cache = new TestCaseKeyCache();
    cache.renew(0);
    cache.remember(idOf(1), 1);
    cache.renew(HOUR - 1);
    expect(cache.get(idOf(1))).toBe(1);
    cache.renew(HOUR);
    expect(cache.get(idOf(1))).toBeUndefined();
    cache.remember(idOf(2), 2);
    cache.forget();
    expect(cache.get(idOf(2))).toBeUndefined();
    cache.remember(idOf(3), 3);
    expect(cache.get(idOf(3))).toBe(3);
  });

  it("behaves as a first-in first-out map of its capacity, whatever the collisions", () => {
    // Few slots and many ids sharing one: the evictions move ids back along long probe sequences.
    const ids = fc.oneof(fc.nat(40).map(idOf), fc.nat(40).map(colliding));
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.array(
          fc.oneof(fc.tuple(fc.constant("remember" as const), ids), fc.tuple(fc.constant("forget" as const))),
          {
            maxLength: 200,
          },
        ),
        (capacity, operations) => {
          const cache = new TestCaseKeyCache(capacity);
          const model = new Map<string, number>();
          let key = 0;
          for (const operation of operations) {
            if (operation[0] === "forget") {
              cache.forget();
              model.clear();
              continue;
            }
            const id = operation[1];
            key++;
            cache.remember(id, key);
            if (!model.has(id)) {
              if (model.size === capacity) model.delete(model.keys().next().value as string);
              model.set(id, key);
            }
            for (const known of [...Array(41).keys()].flatMap((n) => [idOf(n), colliding(n)])) {
              expect(cache.get(known)).toBe(model.get(known));
            }
          }
        },
      ),
    );
  });
});
